//! Array schemas: `items` as `T[]`, `prefixItems` (or array-form `items`)
//! as a tuple with an optional rest.

use serde_json::{Map, Value};

use super::Ctx;
use super::ty::Ty;

impl<'a> Ctx<'a> {
    pub(super) fn render_array(&mut self, obj: &'a Map<String, Value>, indent: usize) -> Ty {
        let (prefix, rest) = match (obj.get("prefixItems"), obj.get("items")) {
            (Some(Value::Array(prefix)), rest) => (prefix, rest),
            (_, Some(Value::Array(prefix))) => (prefix, obj.get("additionalItems")),
            (_, items) => {
                return match items {
                    Some(Value::Bool(false)) => Ty::atom("[]"),
                    Some(schema @ Value::Object(_)) => {
                        let element = self.render(schema, indent);
                        Ty::atom(format!("{}[]", element.postfix_text()))
                    }
                    _ => Ty::atom("unknown[]"),
                };
            }
        };
        let min_items = obj.get("minItems").and_then(Value::as_u64);
        let mut elements: Vec<String> = Vec::new();
        for (i, schema) in prefix.iter().enumerate() {
            let ty = self.render(schema, indent);
            let optional = min_items.is_some_and(|min| (i as u64) >= min);
            elements.push(if optional {
                format!("{}?", ty.postfix_text())
            } else {
                ty.text()
            });
        }
        let rest = match rest {
            Some(Value::Bool(true)) => Some(Ty::Unknown),
            Some(schema @ Value::Object(_)) => Some(self.render(schema, indent)),
            _ => None,
        };
        if let Some(rest) = rest {
            elements.push(format!("...{}[]", rest.postfix_text()));
        }
        Ty::atom(format!("[{}]", elements.join(", ")))
    }
}
