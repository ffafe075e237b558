//! Rendered types, kept structured so that unions and intersections can be
//! flattened, simplified and parenthesised correctly.

use std::collections::HashSet;

/// A rendered type, kept structured so unions and intersections can be
/// flattened, simplified and parenthesised correctly.
#[derive(Clone, Debug)]
pub(super) enum Ty {
    /// `unknown`: anything.
    Unknown,
    /// `never`: nothing.
    Never,
    /// A type that needs no parentheses as a union or intersection member.
    Atom(String, Shape),
    /// `A | B`, at least two members, none of them a union, `unknown` or `never`.
    Union(Vec<Ty>),
    /// `A & B`, at least two members, none of them an intersection, `unknown` or `never`.
    Inter(Vec<Ty>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// Keywords, literals, arrays, tuples.
    Plain,
    /// A negative number literal: parenthesised before `[]` and `?`.
    Negative,
    /// An object literal type.
    Object,
    /// `{ [key: string]: unknown }`: any object; redundant beside another object type.
    OpenObject,
}

impl Ty {
    pub(super) fn atom(text: impl Into<String>) -> Ty {
        Ty::Atom(text.into(), Shape::Plain)
    }

    pub(super) fn text(&self) -> String {
        match self {
            Ty::Unknown => "unknown".to_owned(),
            Ty::Never => "never".to_owned(),
            Ty::Atom(text, _) => text.clone(),
            Ty::Union(members) => members.iter().map(Ty::text).collect::<Vec<_>>().join(" | "),
            Ty::Inter(members) => members
                .iter()
                .map(|m| match m {
                    Ty::Union(_) => format!("({})", m.text()),
                    _ => m.text(),
                })
                .collect::<Vec<_>>()
                .join(" & "),
        }
    }

    /// The text to put before a postfix `[]` or `?`.
    pub(super) fn postfix_text(&self) -> String {
        match self {
            Ty::Unknown
            | Ty::Never
            | Ty::Atom(_, Shape::Plain | Shape::Object | Shape::OpenObject) => self.text(),
            _ => format!("({})", self.text()),
        }
    }

    /// Whether every value of this type is an object (of our object literal kinds).
    fn is_objectish(&self) -> bool {
        match self {
            Ty::Atom(_, shape) => matches!(shape, Shape::Object | Shape::OpenObject),
            Ty::Union(members) => members.iter().all(Ty::is_objectish),
            Ty::Inter(members) => members.iter().any(Ty::is_objectish),
            Ty::Unknown | Ty::Never => false,
        }
    }

    fn is_open_object(&self) -> bool {
        matches!(self, Ty::Atom(_, Shape::OpenObject))
    }
}

/// Which operator a list of members is joined by.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Operator {
    Union,
    Intersection,
}

impl Operator {
    /// The member that absorbs every other: `unknown` in a union, `never`
    /// in an intersection.
    fn absorbs(self, ty: &Ty) -> bool {
        match self {
            Operator::Union => matches!(ty, Ty::Unknown),
            Operator::Intersection => matches!(ty, Ty::Never),
        }
    }

    /// The member that changes nothing: `never` in a union, `unknown` in an
    /// intersection.
    fn is_identity(self, ty: &Ty) -> bool {
        match self {
            Operator::Union => matches!(ty, Ty::Never),
            Operator::Intersection => matches!(ty, Ty::Unknown),
        }
    }
}

/// The members joined by `operator`, with members joined by the same
/// operator inlined, duplicates (by text) and identities dropped; `Err`
/// with the absorbing member if there is one.
fn flatten(members: Vec<Ty>, operator: Operator) -> Result<Vec<Ty>, Ty> {
    let mut flat: Vec<Ty> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut stack: Vec<Ty> = members.into_iter().rev().collect();
    while let Some(member) = stack.pop() {
        match (member, operator) {
            (member, _) if operator.absorbs(&member) => return Err(member),
            (member, _) if operator.is_identity(&member) => {}
            (Ty::Union(inner), Operator::Union) | (Ty::Inter(inner), Operator::Intersection) => {
                stack.extend(inner.into_iter().rev());
            }
            (other, _) => {
                if seen.insert(other.text()) {
                    flat.push(other);
                }
            }
        }
    }
    Ok(flat)
}

/// `A | B | ...`, flattened, with duplicates and `never` dropped; `unknown`
/// absorbs everything.
pub(super) fn union(members: Vec<Ty>) -> Ty {
    let mut flat = match flatten(members, Operator::Union) {
        Ok(flat) => flat,
        Err(absorbing) => return absorbing,
    };
    match flat.len() {
        0 => Ty::Never,
        1 => flat.pop().unwrap_or(Ty::Never),
        _ => Ty::Union(flat),
    }
}

/// `A & B & ...`, flattened, with duplicates and `unknown` dropped; `never`
/// absorbs everything. `{ [key: string]: unknown }` is dropped beside
/// another object type.
pub(super) fn intersection(parts: Vec<Ty>) -> Ty {
    let mut flat = match flatten(parts, Operator::Intersection) {
        Ok(flat) => flat,
        Err(absorbing) => return absorbing,
    };
    if flat.iter().any(|t| t.is_objectish() && !t.is_open_object()) {
        flat.retain(|t| !t.is_open_object());
    }
    match flat.len() {
        0 => Ty::Unknown,
        1 => flat.pop().unwrap_or(Ty::Unknown),
        _ => Ty::Inter(flat),
    }
}
