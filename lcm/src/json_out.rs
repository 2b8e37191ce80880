//! JSON text as every `--json` output of `lcm` writes it: numbers that are zero are
//! written `0.0`, never `-0.0` (a model such as `(p - 1)*-3e-6` gives negative zero at
//! p = 1; a reader comparing or printing it should not see a sign that means nothing).
//!
//! ```
//! let v = serde_json::json!({"a": -0.0, "b": [-0.0, -1.5]});
//! assert_eq!(lcm::json_out::compact(&v), r#"{"a":0.0,"b":[0.0,-1.5]}"#);
//! ```
use serde_json::Value;

/// `v` with every negative zero made `0.0`.
pub fn without_negative_zero(mut v: Value) -> Value {
    tidy(&mut v);
    v
}

fn tidy(v: &mut Value) {
    match v {
        Value::Number(n) if n.as_f64().is_some_and(|x| x == 0.0 && x.is_sign_negative()) => {
            *v = Value::from(0.0);
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        Value::Object(map) => map.values_mut().for_each(tidy),
        _ => {}
    }
}

/// `v` as indented JSON text, without negative zeros.
pub fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(&without_negative_zero(v.clone())).unwrap_or_default()
}

/// `v` as one line of JSON text, without negative zeros.
pub fn compact(v: &Value) -> String {
    serde_json::to_string(&without_negative_zero(v.clone())).unwrap_or_default()
}
