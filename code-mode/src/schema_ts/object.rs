//! Object schemas: `properties` and `required` as an object literal type,
//! `additionalProperties` and `patternProperties` as an index signature.

use serde_json::{Map, Value};

use super::Ctx;
use super::ty::{Shape, Ty, union};
use crate::ts_syntax::{indentation, jsdoc, property_key};

impl<'a> Ctx<'a> {
    pub(super) fn render_object(&mut self, obj: &'a Map<String, Value>, indent: usize) -> Ty {
        let inner = indent + 1;
        let mut required: Vec<&'a str> = Vec::new();
        if let Some(Value::Array(names)) = obj.get("required") {
            for name in names.iter().filter_map(Value::as_str) {
                if !required.contains(&name) {
                    required.push(name);
                }
            }
        }

        // What keys other than the named properties may hold.
        let patterns: Vec<Ty> = match obj.get("patternProperties") {
            Some(Value::Object(patterns)) => {
                patterns.values().map(|s| self.render(s, inner)).collect()
            }
            _ => Vec::new(),
        };
        enum Rest {
            Open,
            Closed,
            Typed(Ty),
        }
        let rest = match obj.get("additionalProperties") {
            Some(Value::Bool(false)) => Rest::Closed,
            Some(schema @ Value::Object(_)) => Rest::Typed(self.render(schema, inner)),
            _ => Rest::Open,
        };
        let undeclared = match &rest {
            Rest::Open => Ty::Unknown,
            Rest::Closed => union(patterns.clone()),
            Rest::Typed(ty) => union(
                std::iter::once(ty.clone())
                    .chain(patterns.iter().cloned())
                    .collect(),
            ),
        };

        struct Member {
            doc: Option<String>,
            key: String,
            optional: bool,
            ty: Ty,
        }
        let mut members: Vec<Member> = Vec::new();
        if let Some(Value::Object(properties)) = obj.get("properties") {
            for (name, schema) in properties {
                let optional = !(required.contains(&name.as_str())
                    || schema.get("required") == Some(&Value::Bool(true)));
                let doc = schema
                    .get("description")
                    .and_then(Value::as_str)
                    .and_then(jsdoc);
                let key = property_key(name);
                self.text_bytes += key.len() + doc.as_ref().map_or(0, String::len);
                members.push(Member {
                    doc,
                    key,
                    optional,
                    ty: self.render(schema, inner),
                });
            }
        }
        for name in required {
            let declared =
                matches!(obj.get("properties"), Some(Value::Object(p)) if p.contains_key(name));
            if !declared {
                self.text_bytes += name.len();
                members.push(Member {
                    doc: None,
                    key: property_key(name),
                    optional: false,
                    ty: undeclared.clone(),
                });
            }
        }

        let index = match rest {
            Rest::Open => members.is_empty().then_some(Ty::Unknown),
            Rest::Closed => (!patterns.is_empty()).then(|| union(patterns)),
            Rest::Typed(ty) => Some(union(std::iter::once(ty).chain(patterns).collect())),
        };
        // Named properties must be assignable to the index signature's type.
        let index = index.map(|base| {
            if members.is_empty() {
                base
            } else if members.iter().any(|m| m.ty.text().contains('\n')) {
                Ty::Unknown
            } else {
                let mut all = vec![base];
                all.extend(members.iter().map(|m| m.ty.clone()));
                if members.iter().any(|m| m.optional) {
                    all.push(Ty::atom("undefined"));
                }
                union(all)
            }
        });

        if members.is_empty() {
            let (value, shape) = match &index {
                None => ("never".to_owned(), Shape::Object),
                Some(Ty::Unknown) => ("unknown".to_owned(), Shape::OpenObject),
                Some(ty) => (ty.text(), Shape::Object),
            };
            if !value.contains('\n') {
                return Ty::Atom(format!("{{ [key: string]: {value} }}"), shape);
            }
        }

        let pad = indentation(inner);
        let mut text = String::from("{\n");
        for member in &members {
            if let Some(doc) = &member.doc {
                text.push_str(&pad);
                text.push_str(doc);
                text.push('\n');
            }
            text.push_str(&pad);
            text.push_str(&member.key);
            if member.optional {
                text.push('?');
            }
            text.push_str(": ");
            text.push_str(&member.ty.text());
            text.push_str(";\n");
        }
        if let Some(ty) = &index {
            text.push_str(&pad);
            text.push_str("[key: string]: ");
            text.push_str(&ty.text());
            text.push_str(";\n");
        }
        text.push_str(&indentation(indent));
        text.push('}');
        Ty::Atom(text, Shape::Object)
    }
}
