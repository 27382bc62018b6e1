//! Whether a manifest value (a default, a sample argument) fits a lowered shape.

use serde_json::Value;

use crate::model::Shape;

/// Checks a manifest value (a default) against a shape; the error says why it does not fit.
pub fn check_value(shape: &Shape, v: &Value) -> Result<(), String> {
    match (shape, v) {
        (Shape::Any, _) => Ok(()),
        (Shape::String { min_len, max_len }, Value::String(s)) => {
            within("length", s.chars().count() as f64, min_len.map(|x| x as f64), max_len.map(|x| x as f64))
        }
        (Shape::Enum { values, .. }, Value::String(s)) => {
            if values.contains(s) {
                Ok(())
            } else {
                Err(format!("`{s}` is not one of: {}", values.join(", ")))
            }
        }
        (Shape::Integer { min, max }, Value::Number(n)) if n.is_i64() || n.is_u64() => {
            within("value", n.as_f64().unwrap_or_default(), min.map(|x| x as f64), max.map(|x| x as f64))
        }
        (Shape::Number { min, max }, Value::Number(n)) => within("value", n.as_f64().unwrap_or_default(), *min, *max),
        (Shape::Boolean, Value::Bool(_)) => Ok(()),
        (Shape::Map | Shape::Object(_), Value::Object(_)) => Ok(()),
        (Shape::Array { items, min_items, max_items }, Value::Array(a)) => {
            within("item count", a.len() as f64, min_items.map(|x| x as f64), max_items.map(|x| x as f64))?;
            a.iter().try_for_each(|x| check_value(items, x))
        }
        (shape, v) => Err(format!("expected {}, got {v}", shape.json_type().unwrap_or("any value"))),
    }
}

fn within(what: &str, x: f64, min: Option<f64>, max: Option<f64>) -> Result<(), String> {
    if min.is_some_and(|m| x < m) || max.is_some_and(|m| x > m) {
        let range = match (min, max) {
            (Some(a), Some(b)) => format!("between {a} and {b}"),
            (Some(a), None) => format!("at least {a}"),
            (None, Some(b)) => format!("at most {b}"),
            (None, None) => unreachable!("a bound was violated"),
        };
        Err(format!("{what} {x} is outside the declared range: must be {range}"))
    } else {
        Ok(())
    }
}
