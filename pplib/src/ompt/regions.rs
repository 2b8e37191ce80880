//! Fragment names for OpenMP regions, from their code addresses.
//!
//! A region (a parallel region, a work-sharing construct, a masked block) is recorded as a
//! fragment named `FUNCTION/CONSTRUCT:FILE:LINE`, e.g. `imbalanced/parallel:work.c:41` and
//! `imbalanced/loop:work.c:43`: the function that contains the construct, the construct, and
//! the source line where the object has DWARF line tables. Without line tables the name
//! ends in the offset of the construct in its function (`imbalanced/loop:0x4c`); without
//! a symbol, it is `OBJECT:0xADDRESS/CONSTRUCT`. The function is the one of the source:
//! where the compiler inlined a function into its caller (a `static` helper into `main` at
//! `-O2`) and the object has DWARF debug information (`-g`), the region is named after the
//! inlined function, not the symbol it ended up in.
//!
//! Names hold only letters, digits and `_ . - : /` (any other character becomes `_`), so
//! that they are valid fragment names everywhere the tools take one: `pp -t`, `pp-campaign
//! --per-iteration`, `lca --tag` and the `// lcm: fragment NAME` lines of the models file
//! `lca model --emit annotation` writes.
//!
//! Compilers move the body of a parallel region into a function of their own (clang's
//! `.omp_outlined.`, GCC's `main._omp_fn.0`); a construct found in such a function is named
//! after the function that contains the enclosing parallel region.
//!
//! A code address is resolved the first time the process meets it ([`super::symbols`]:
//! the object's tables are read once, on its first lookup), before the clock is read for
//! the region's first event, so the cost falls in the serial code before the region; the
//! log's string table must define a name before a chunk uses it, which rules out resolving
//! at the session's end. Later uses cost a look-up in a small per-thread cache.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::symbols::{self, Place};
use crate::recorder;

/// The OpenMP constructs recorded as fragments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Construct {
    Parallel,
    Loop,
    Sections,
    Single,
    Workshare,
    Distribute,
    Taskloop,
    Scope,
    Masked,
}

impl Construct {
    fn name(self) -> &'static str {
        match self {
            Construct::Parallel => "parallel",
            Construct::Loop => "loop",
            Construct::Sections => "sections",
            Construct::Single => "single",
            Construct::Workshare => "workshare",
            Construct::Distribute => "distribute",
            Construct::Taskloop => "taskloop",
            Construct::Scope => "scope",
            Construct::Masked => "masked",
        }
    }
}

/// Resolved names, per (construct's code address, enclosing region's code address, construct).
type Key = (usize, usize, Construct);
static NAMES: Mutex<Option<HashMap<Key, Arc<str>>>> = Mutex::new(None);

/// Per-thread cache: key and session state to the string-table id.
struct CacheEntry {
    key: Key,
    state: u64,
    id: u32,
}

const CACHE_SLOTS: usize = 32;

thread_local! {
    static CACHE: RefCell<Vec<Option<CacheEntry>>> = const { RefCell::new(Vec::new()) };
}

/// The string-table id, in session `state`, of the fragment naming `construct` at code
/// address `codeptr` inside the parallel region at `region` (0: unknown or the construct
/// is the region itself). None if the session is over.
pub(crate) fn fragment_id(
    state: u64,
    construct: Construct,
    codeptr: usize,
    region: usize,
) -> Option<u32> {
    let key = (codeptr, region, construct);
    let slot = (codeptr ^ region.rotate_left(17)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 59;
    let slot = slot % CACHE_SLOTS;
    CACHE
        .try_with(|cache| {
            if let Ok(cache) = cache.try_borrow() {
                if let Some(Some(e)) = cache.get(slot) {
                    if e.key == key && e.state == state {
                        return Some(e.id);
                    }
                }
            }
            let name = resolve(key);
            let id = recorder::name_id(state, &name)?;
            if let Ok(mut cache) = cache.try_borrow_mut() {
                if cache.is_empty() {
                    cache.resize_with(CACHE_SLOTS, || None);
                }
                cache[slot] = Some(CacheEntry { key, state, id });
            }
            Some(id)
        })
        .ok()
        .flatten()
}

/// The name of `key`, resolved once per process.
fn resolve(key: Key) -> Arc<str> {
    let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(name) = names.as_ref().and_then(|n| n.get(&key)) {
        return Arc::clone(name);
    }
    let (codeptr, region, construct) = key;
    let place = symbols::locate(codeptr);
    let enclosing = (region != 0 && region != codeptr)
        .then(|| symbols::locate(region))
        .flatten();
    let name: Arc<str> =
        fragment_name(place.as_ref(), enclosing.as_ref(), construct, codeptr).into();
    names
        .get_or_insert_with(HashMap::new)
        .insert(key, Arc::clone(&name));
    name
}

/// True for the functions compilers outline region bodies into.
fn is_outlined(function: &str) -> bool {
    function.starts_with(".omp_outlined") || function.contains("._omp_fn.")
}

/// `FUNCTION/CONSTRUCT:FILE:LINE` (see the module docs).
pub(crate) fn fragment_name(
    place: Option<&Place>,
    enclosing: Option<&Place>,
    construct: Construct,
    codeptr: usize,
) -> String {
    let Some(place) = place else {
        return valid_name(&format!("0x{codeptr:x}/{}", construct.name()));
    };
    let own = source_function(place);
    let outer = enclosing.and_then(source_function);
    let function = match (own, outer) {
        (Some(f), Some(outer)) if is_outlined(f) && !is_outlined(outer) => outer.to_owned(),
        // GCC names the outlined body after its function: main._omp_fn.0 is in main.
        (Some(f), _) if f.contains("._omp_fn.") => f[..f.find("._omp_fn.").unwrap_or(0)].to_owned(),
        (Some(f), _) => f.to_owned(),
        (None, _) => format!("{}:0x{:x}", place.object, place.address),
    };
    let mut name = format!("{function}/{}", construct.name());
    match (&place.line, &place.function) {
        (Some((file, line)), _) => name += &format!(":{file}:{line}"),
        (None, Some((_, offset))) => name += &format!(":0x{offset:x}"),
        (None, None) => {}
    }
    valid_name(&name)
}

/// The function of the source at `place`: the inlined one where there is one, else the
/// symbol's.
fn source_function(place: &Place) -> Option<&str> {
    place
        .inlined
        .as_deref()
        .or(place.function.as_ref().map(|(f, _)| f.as_str()))
}

/// `name` with every character other than a letter, digit or `_ . - : /` replaced by `_`,
/// and `_` before a first character that is not a letter, digit or `_`.
fn valid_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "_.-:/".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !out.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
        out.insert(0, '_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(function: Option<(&str, u64)>, line: Option<(&str, u32)>) -> Place {
        Place {
            object: "prog".into(),
            address: 0x1234,
            function: function.map(|(f, o)| (f.to_owned(), o)),
            line: line.map(|(f, l)| (f.to_owned(), l)),
            inlined: None,
        }
    }

    #[test]
    fn names_say_function_construct_and_line() {
        let p = place(Some(("solve", 0x2c)), Some(("cg.c", 41)));
        assert_eq!(
            fragment_name(Some(&p), None, Construct::Parallel, 0),
            "solve/parallel:cg.c:41"
        );
        let p = place(Some(("solve", 0x2c)), None);
        assert_eq!(
            fragment_name(Some(&p), None, Construct::Loop, 0),
            "solve/loop:0x2c"
        );
        let p = place(None, None);
        assert_eq!(
            fragment_name(Some(&p), None, Construct::Single, 0),
            "prog:0x1234/single"
        );
        assert_eq!(
            fragment_name(None, None, Construct::Masked, 0xab),
            "0xab/masked"
        );
    }

    #[test]
    fn outlined_bodies_take_the_enclosing_function_name() {
        let body = place(Some((".omp_outlined._debug__", 0x10)), Some(("cg.c", 50)));
        let region = place(Some(("solve", 0x2c)), Some(("cg.c", 41)));
        assert_eq!(
            fragment_name(Some(&body), Some(&region), Construct::Loop, 0),
            "solve/loop:cg.c:50"
        );
        let gcc = place(Some(("main._omp_fn.0", 0x10)), None);
        assert_eq!(
            fragment_name(Some(&gcc), None, Construct::Loop, 0),
            "main/loop:0x10"
        );
        let spaced = place(Some(("operator new", 0)), Some(("my file.c", 3)));
        assert_eq!(
            fragment_name(Some(&spaced), None, Construct::Scope, 0),
            "operator_new/scope:my_file.c:3"
        );
    }

    #[test]
    fn inlined_functions_name_their_regions() {
        let mut region = place(Some(("main", 0x80)), Some(("tri.c", 33)));
        region.inlined = Some("trimul".into());
        assert_eq!(
            fragment_name(Some(&region), None, Construct::Parallel, 0),
            "trimul/parallel:tri.c:33"
        );
        let body = place(Some((".omp_outlined.", 0x10)), Some(("tri.c", 36)));
        assert_eq!(
            fragment_name(Some(&body), Some(&region), Construct::Loop, 0),
            "trimul/loop:tri.c:36"
        );
    }

    #[test]
    fn names_are_valid_fragment_names() {
        let odd = place(Some(("_ZN3foo$LT$T$GT$3barE", 0)), Some(("a+b@c.c", 7)));
        assert_eq!(
            fragment_name(Some(&odd), None, Construct::Loop, 0),
            "_ZN3foo_LT_T_GT_3barE/loop:a_b_c.c:7"
        );
        let mut hidden = place(None, None);
        hidden.object = "[vdso]".into();
        assert_eq!(
            fragment_name(Some(&hidden), None, Construct::Single, 0),
            "_vdso_:0x1234/single"
        );
        hidden.object = ".hidden".into();
        assert_eq!(
            fragment_name(Some(&hidden), None, Construct::Single, 0),
            "_.hidden:0x1234/single"
        );
    }
}
