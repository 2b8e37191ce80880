//! Channels: which names are the ends of one channel (`let (tx, rx) = channel()`, clones),
//! so that sends and receives pair up across tasks.
use super::syntax::{expr_name, pat_name, path_last};
use super::{Recognizer, CHANNEL_FNS};

impl Recognizer<'_> {
    /// Records `let (tx, rx) = channel()` and `let tx2 = tx.clone()`.
    pub(super) fn note_channel(&mut self, pat: &syn::Pat, init: &syn::Expr) {
        let call_name = match init {
            syn::Expr::Call(c) => path_last(&c.func).map(|(_, l)| l),
            _ => None,
        };
        match pat {
            syn::Pat::Tuple(t) if t.elems.len() == 2 => {
                if call_name.is_some_and(|n| CHANNEL_FNS.contains(&n.as_str())) {
                    let names: Vec<String> = t.elems.iter().map(pat_name).collect();
                    let id = format!("{}/{}", names[0], names[1]);
                    for n in names {
                        self.chan_alias.insert(n, id.clone());
                    }
                }
            }
            other => {
                let n = pat_name(other);
                if let syn::Expr::MethodCall(m) = init {
                    if m.method == "clone" {
                        let base = expr_name(&m.receiver);
                        if let Some(id) = self.chan_alias.get(&base).cloned() {
                            self.chan_alias.insert(n, id);
                        }
                    }
                }
            }
        }
    }

    pub(super) fn chan_id(&self, receiver: &syn::Expr) -> String {
        let n = expr_name(receiver);
        self.chan_alias.get(&n).cloned().unwrap_or(n)
    }

    pub(super) fn chan_id_by_name(&self, n: &str) -> String {
        self.chan_alias
            .get(n)
            .cloned()
            .unwrap_or_else(|| n.to_string())
    }
}
