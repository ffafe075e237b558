//! Type erasure: TypeScript to JavaScript by overwriting the types with
//! spaces, in place.
//!
//! Most TypeScript a model writes is JavaScript plus *erasable* syntax:
//! annotations, interfaces and type aliases, generics, `as`/`satisfies`/`!`,
//! access modifiers, overloads, `declare`. Each of those is a span of the
//! source that can be overwritten with spaces, leaving a JavaScript program
//! whose every remaining token is where it was. So the script needs no
//! semantic analysis, no transform and no reprint, and no source map either:
//! positions in it are positions in the program as written.
//!
//! # What makes it safe
//! - The spans come from oxc's TypeScript parse, so what is erased is what
//!   the TypeScript grammar says is a type, never a guess from the text.
//! - Only ASCII is overwritten, byte for byte, and line breaks are kept, so
//!   lines and columns stay put. A span with any other character (a
//!   non-ASCII string literal type, say) is not erased: the program takes
//!   the full transform instead.
//! - Whatever JavaScript would read differently once a span is blank takes
//!   the full transform too. Erased statements and class members leave a
//!   `;` behind, so the previous line cannot run into the next. An erased
//!   `as T`, `satisfies T` or instantiation expression `f<T>` must be
//!   followed by a token that ends the expression or binds looser than a
//!   comparison (`)`, `;`, `,`, `&&`, …): `a + b as T * c` is `(a + b) * c`
//!   in TypeScript but not once `as T` is blank. An erased prefix (`<T>x`,
//!   an arrow's `<T>`) must share its line with the token before it, and an
//!   arrow's return type must not put a line break before `=>`.
//! - Syntax that is not erasable (`enum`, a `namespace` with values,
//!   parameter properties, decorators, `accessor`, `import x = require()`)
//!   and every TypeScript node this module does not know take the full
//!   transform: the visitor treats any TypeScript node it meets outside an
//!   erased span as unknown.
//!
//! The unit tests check, over a corpus, that the erased program and the full
//! transform's output are the same JavaScript once printed by oxc.

use oxc::ast::AstKind;
use oxc::ast::ast::{
    ArrowFunctionExpression, Class, Declaration, FormalParameter, Function, MethodDefinition,
    MethodDefinitionType, Program, PropertyDefinition, PropertyDefinitionType, PropertyKey,
    TSAsExpression, TSClassImplements, TSIndexSignature, TSInstantiationExpression,
    TSNonNullExpression, TSSatisfiesExpression, TSThisParameter, TSTypeAnnotation, TSTypeAssertion,
    TSTypeParameterDeclaration, TSTypeParameterInstantiation, VariableDeclarator,
};
use oxc::ast_visit::{Visit, walk};
use oxc::span::{GetSpan, Span};
use oxc::syntax::scope::ScopeFlags;

use super::TYPESCRIPT_NODES;

/// `source` with its types erased, or `None` when it needs the full
/// transform. A program with no TypeScript syntax comes back unchanged.
pub(super) fn erase(source: &str, program: &Program<'_>) -> Option<String> {
    let mut eraser = Eraser {
        source: source.as_bytes(),
        erased: Vec::new(),
        unsupported: false,
    };
    eraser.visit_program(program);
    if eraser.unsupported {
        return None;
    }
    let mut out = source.as_bytes().to_vec();
    for &(span, leave) in &eraser.erased {
        let (start, end) = (span.start as usize, span.end as usize);
        let bytes = out.get_mut(start..end)?;
        if !bytes.is_ascii() {
            return None;
        }
        for byte in bytes.iter_mut() {
            if !matches!(byte, b'\n' | b'\r') {
                *byte = b' ';
            }
        }
        if leave == Leave::Semicolon
            && let Some(first) = bytes.first_mut()
        {
            *first = b';';
        }
    }
    // Only ASCII was overwritten, with ASCII: still UTF-8.
    String::from_utf8(out).ok()
}

/// What an erased span leaves behind.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Leave {
    Spaces,
    /// A `;` and spaces: the span was a whole statement or class member,
    /// and the one before it must not run into the one after it.
    Semicolon,
}

struct Eraser<'s> {
    source: &'s [u8],
    erased: Vec<(Span, Leave)>,
    unsupported: bool,
}

impl Eraser<'_> {
    fn erase(&mut self, span: Span) {
        self.erased.push((span, Leave::Spaces));
    }

    fn erase_whole(&mut self, span: Span) {
        self.erased.push((span, Leave::Semicolon));
    }

    fn give_up(&mut self) {
        self.unsupported = true;
    }

    fn text(&self, start: u32, end: u32) -> &[u8] {
        self.source
            .get(start as usize..end as usize)
            .unwrap_or_default()
    }

    fn has_line_break(&self, start: u32, end: u32) -> bool {
        self.text(start, end)
            .iter()
            .any(|&b| matches!(b, b'\n' | b'\r'))
    }

    /// The offset of the first byte at or after `at` that is not a space or
    /// a tab, and whether a line break came before it. Comments count as
    /// tokens here: callers treat them as something unexpected.
    fn next_token(&self, at: u32) -> (u32, bool) {
        let mut at = at as usize;
        let mut line_break = false;
        while let Some(&byte) = self.source.get(at) {
            match byte {
                b' ' | b'\t' => {}
                b'\n' | b'\r' => line_break = true,
                _ => break,
            }
            at += 1;
        }
        (at as u32, line_break)
    }

    /// Whether the token before `at` is on the same line (and is no
    /// comment).
    fn previous_token_on_same_line(&self, at: u32) -> bool {
        let before = self.text(0, at);
        match before.iter().rev().find(|&&b| !matches!(b, b' ' | b'\t')) {
            None => true,
            Some(b'\n' | b'\r' | b'/') => false,
            Some(_) => true,
        }
    }

    /// Erases the single-byte mark (`?` or `!`) that must be the next token
    /// at or after `at`.
    fn erase_mark(&mut self, at: u32, mark: u8) {
        let (next, _) = self.next_token(at);
        if self.source.get(next as usize) == Some(&mark) {
            self.erase(Span::new(next, next + 1));
        } else {
            self.give_up();
        }
    }

    /// After an erased expression suffix (`as T`, `satisfies T`, `f<T>`)
    /// ending at `end`: whether the next token ends the expression, or binds
    /// looser than a comparison, so that erasing cannot regroup or continue
    /// it. Anything else, or a line break first, takes the full transform.
    fn check_suffix(&mut self, end: u32) {
        let (next, line_break) = self.next_token(end);
        let rest = self.text(next, next.saturating_add(10));
        let word_then_break = |word: &[u8]| {
            rest.strip_prefix(word)
                .is_some_and(|after| after.first().is_none_or(|b| !is_identifier_byte(*b)))
        };
        let ends = match rest {
            [] => true,
            _ if line_break => false,
            [b')' | b']' | b'}' | b';' | b',' | b':', ..] => true,
            // `==`, `===`, `!=`, `!==`
            [b'=' | b'!', b'=', ..] => true,
            // `&&`, `||`, `??`, not their assignments.
            [b'&', b'&', third, ..] | [b'|', b'|', third, ..] | [b'?', b'?', third, ..] => {
                *third != b'='
            }
            // The conditional operator, but not `?.`.
            [b'?', second, ..] => *second != b'.',
            // Bitwise `&`, `|`, `^`, not their assignments.
            [b'&' | b'|' | b'^', second, ..] => *second != b'=',
            // `x as unknown as T`: the next suffix, erased in turn.
            _ => word_then_break(b"as") || word_then_break(b"satisfies"),
        };
        if !ends {
            self.give_up();
        }
    }

    /// Erases the modifiers (`public`, `private`, `protected`, `readonly`,
    /// `override`, `abstract`, `declare`) of a class member or class
    /// written between `start` and `end`, keeping the JavaScript ones
    /// (`static`, `async`, `get`, `set`, `*`, `class`). When `semicolon`
    /// and the member starts with an erased word, a `;` takes its place:
    /// what is left of the member may start with `[` or `*`, which the
    /// member before it would otherwise run into.
    fn erase_modifiers(&mut self, start: u32, end: u32, semicolon: bool) {
        let text = self.text(start, end);
        let mut at = 0;
        let mut first_word = true;
        let mut words = Vec::new();
        while at < text.len() {
            let byte = text[at];
            if byte.is_ascii_alphabetic() {
                let len = text[at..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphabetic())
                    .count();
                let span = Span::new(start + at as u32, start + (at + len) as u32);
                match &text[at..at + len] {
                    b"public" | b"private" | b"protected" | b"readonly" | b"override"
                    | b"abstract" | b"declare" => {
                        let leave = if semicolon && first_word {
                            Leave::Semicolon
                        } else {
                            Leave::Spaces
                        };
                        words.push((span, leave));
                    }
                    b"static" | b"async" | b"get" | b"set" | b"class" => {}
                    _ => return self.give_up(),
                }
                first_word = false;
                at += len;
            } else if matches!(byte, b' ' | b'\t' | b'\n' | b'\r' | b'*') {
                at += 1;
            } else if byte == b'[' && text[at + 1..].iter().all(u8::is_ascii_whitespace) {
                // A computed key's bracket.
                at = text.len();
            } else {
                return self.give_up();
            }
        }
        self.erased.extend(words);
    }
}

impl<'a> Visit<'a> for Eraser<'_> {
    /// Every node the overrides below erase is skipped with its children,
    /// and the others are JavaScript: a TypeScript node seen here is one
    /// this module does not know how to erase.
    fn enter_node(&mut self, kind: AstKind<'a>) {
        if TYPESCRIPT_NODES.contains(&(kind.ty() as u8)) {
            self.give_up();
        }
        // `accessor` fields belong to the decorators proposal, which
        // QuickJS does not parse: the transform handles them.
        if let AstKind::AccessorProperty(_) = kind {
            self.give_up();
        }
    }

    fn visit_declaration(&mut self, it: &Declaration<'a>) {
        match it {
            Declaration::TSTypeAliasDeclaration(it) => self.erase_whole(it.span),
            Declaration::TSInterfaceDeclaration(it) => self.erase_whole(it.span),
            Declaration::TSEnumDeclaration(it) if it.declare => self.erase_whole(it.span),
            Declaration::TSNamespaceDeclaration(it) if it.declare => self.erase_whole(it.span),
            Declaration::TSExternalModuleDeclaration(it) if it.declare => {
                self.erase_whole(it.span);
            }
            Declaration::TSGlobalDeclaration(it) => self.erase_whole(it.span),
            Declaration::VariableDeclaration(it) if it.declare => self.erase_whole(it.span),
            // A declaration, or an overload signature.
            Declaration::FunctionDeclaration(it) if it.declare || it.body.is_none() => {
                self.erase_whole(it.span);
            }
            Declaration::ClassDeclaration(it) if it.declare => self.erase_whole(it.span),
            _ => walk::walk_declaration(self, it),
        }
    }

    fn visit_ts_type_annotation(&mut self, it: &TSTypeAnnotation<'a>) {
        self.erase(it.span);
    }

    /// `<T>` of a function, class or method (an arrow's is checked where it
    /// stands): a line break left in its place is harmless there.
    fn visit_ts_type_parameter_declaration(&mut self, it: &TSTypeParameterDeclaration<'a>) {
        self.erase(it.span);
    }

    /// `<T>` of a call, `new`, tagged template or `extends`: what follows
    /// continues across a line break in JavaScript too.
    fn visit_ts_type_parameter_instantiation(&mut self, it: &TSTypeParameterInstantiation<'a>) {
        self.erase(it.span);
    }

    /// `this: T` and the comma after it.
    fn visit_ts_this_parameter(&mut self, it: &TSThisParameter<'a>) {
        let (next, _) = self.next_token(it.span.end);
        match self.source.get(next as usize) {
            Some(b',') => self.erase(Span::new(it.span.start, next + 1)),
            Some(b')') => self.erase(it.span),
            _ => self.give_up(),
        }
    }

    fn visit_ts_as_expression(&mut self, it: &TSAsExpression<'a>) {
        self.visit_expression(&it.expression);
        self.erase(Span::new(it.expression.span().end, it.span.end));
        self.check_suffix(it.span.end);
    }

    fn visit_ts_satisfies_expression(&mut self, it: &TSSatisfiesExpression<'a>) {
        self.visit_expression(&it.expression);
        self.erase(Span::new(it.expression.span().end, it.span.end));
        self.check_suffix(it.span.end);
    }

    /// `<T>x`: the prefix.
    fn visit_ts_type_assertion(&mut self, it: &TSTypeAssertion<'a>) {
        let prefix = Span::new(it.span.start, it.expression.span().start);
        if self.has_line_break(prefix.start, prefix.end)
            || !self.previous_token_on_same_line(prefix.start)
        {
            self.give_up();
        }
        self.erase(prefix);
        self.visit_expression(&it.expression);
    }

    /// `x!`: the `!`.
    fn visit_ts_non_null_expression(&mut self, it: &TSNonNullExpression<'a>) {
        self.visit_expression(&it.expression);
        let end = it.span.end;
        if end > 0 && self.source.get(end as usize - 1) == Some(&b'!') {
            self.erase(Span::new(end - 1, end));
        } else {
            self.give_up();
        }
    }

    /// `f<T>` without a call.
    fn visit_ts_instantiation_expression(&mut self, it: &TSInstantiationExpression<'a>) {
        self.visit_expression(&it.expression);
        self.visit_ts_type_parameter_instantiation(&it.type_arguments);
        self.check_suffix(it.span.end);
    }

    /// `implements A, B<T>`, from the keyword to the last type.
    fn visit_ts_class_implements_list(
        &mut self,
        it: &oxc::allocator::Vec<'a, TSClassImplements<'a>>,
    ) {
        let (Some(first), Some(last)) = (it.first(), it.last()) else {
            return;
        };
        let before = self.text(0, first.span.start);
        let trimmed = before.trim_ascii_end();
        if trimmed.ends_with(b"implements") {
            let keyword = (trimmed.len() - b"implements".len()) as u32;
            self.erase(Span::new(keyword, last.span.end));
        } else {
            self.give_up();
        }
    }

    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        // Signatures without a body are erased whole where they stand (a
        // declaration, a class member); anywhere else they are unknown.
        if it.body.is_none() || it.declare {
            return self.give_up();
        }
        walk::walk_function(self, it, flags);
    }

    fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
        // `<T>(x) => x`: the arrow must not start a line (the line before
        // could run into it), and `async` must share a line with the
        // parameters.
        if it.type_parameters.is_some()
            && (self.has_line_break(it.span.start, it.params.span.start)
                || !self.previous_token_on_same_line(it.span.start))
        {
            self.give_up();
        }
        // `(a): T => …`: nothing but the type between `)` and `=>`, and no
        // line break in it (none may stand before `=>`).
        if let Some(return_type) = &it.return_type {
            let (arrow, _) = self.next_token(return_type.span.end);
            if self.has_line_break(it.params.span.end, return_type.span.end)
                || self.text(arrow, arrow + 2) != b"=>"
                || self.has_line_break(return_type.span.end, arrow)
            {
                self.give_up();
            }
        }
        walk::walk_arrow_function_expression(self, it);
    }

    fn visit_formal_parameter(&mut self, it: &FormalParameter<'a>) {
        // Parameter properties assign fields: not erasable.
        if it.accessibility.is_some() || it.readonly || it.r#override {
            return self.give_up();
        }
        if it.optional {
            self.erase_mark(it.pattern.span().end, b'?');
        }
        walk::walk_formal_parameter(self, it);
    }

    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if it.definite {
            self.erase_mark(it.id.span().end, b'!');
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_class(&mut self, it: &Class<'a>) {
        if it.r#abstract {
            match &it.id {
                Some(id) => self.erase_modifiers(it.span.start, id.span.start, false),
                None => return self.give_up(),
            }
        }
        walk::walk_class(self, it);
    }

    /// `[key: string]: T;` in a class body (elsewhere it is inside a type,
    /// which is erased whole).
    fn visit_ts_index_signature(&mut self, it: &TSIndexSignature<'a>) {
        self.erase_whole(it.span);
    }

    fn visit_method_definition(&mut self, it: &MethodDefinition<'a>) {
        if it.r#type == MethodDefinitionType::TSAbstractMethodDefinition || it.value.body.is_none()
        {
            return self.erase_whole(it.span);
        }
        if it.optional {
            return self.give_up();
        }
        if it.accessibility.is_some() || it.r#override {
            self.erase_modifiers(it.span.start, key_start(&it.key, it.computed), true);
        }
        walk::walk_method_definition(self, it);
    }

    fn visit_property_definition(&mut self, it: &PropertyDefinition<'a>) {
        if it.r#type == PropertyDefinitionType::TSAbstractPropertyDefinition || it.declare {
            return self.erase_whole(it.span);
        }
        if it.accessibility.is_some() || it.readonly || it.r#override {
            self.erase_modifiers(it.span.start, key_start(&it.key, it.computed), true);
        }
        if it.optional || it.definite {
            if it.computed {
                return self.give_up();
            }
            let mark = if it.optional { b'?' } else { b'!' };
            self.erase_mark(it.key.span().end, mark);
        }
        walk::walk_property_definition(self, it);
    }
}

fn is_identifier_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'$') || !byte.is_ascii()
}

/// Where a class member's key starts: at its `[` when computed (oxc's span
/// of a computed key is the expression inside the brackets).
fn key_start(key: &PropertyKey<'_>, computed: bool) -> u32 {
    let start = key.span().start;
    if computed {
        start.saturating_sub(1)
    } else {
        start
    }
}
