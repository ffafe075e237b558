//! How deeply a program nests, measured before it is parsed.
//!
//! The TypeScript front end (oxc) is a recursive-descent parser followed by
//! recursive passes over the tree, all running on the host: a program that
//! nests deeply enough overflows the host thread's stack, which aborts the
//! whole process. So before the parser sees a program, this module measures
//! its nesting with a single pass over its tokens, and the front end refuses
//! a program that nests deeper than `config.max_nesting_depth` and runs the
//! parser on a stack sized for the depth it measured (see `transform`).
//!
//! # What counts
//! The measure is the deepest point of a walk over the tokens:
//! - every bracket, brace, parenthesis and template substitution (`${`)
//!   opens a level, which its closer closes;
//! - within a level, every operator, keyword, `.`, `<` and closed group
//!   (a call's or index's brackets) that could deepen the syntax tree adds
//!   one, until the expression or statement ends: at `,`, at `;`, at a line
//!   break where a semicolon would be inserted, or after a block, unless an
//!   `else` continues the statement.
//!
//! This over-approximates the recursion depth of the parser and the passes
//! after it: chains of operators (`a = b = c`, `!!!x`, `x.a.b`, `f()()`),
//! statement heads without braces (`if (a) if (b) …`, `else if` chains) and
//! generic arguments (`A<B<C>>`) all count, and identifiers and literals,
//! which cannot deepen anything on their own, do not. Typical programs
//! measure in the tens; the default limit is far above what people write.
//!
//! # Lexing as the parser does
//! Brackets inside strings, comments, template text and regular expression
//! literals do not count, so the scan must split the text where the parser
//! will: a disagreement could hide real brackets from it. Comments end at
//! any line terminator (U+2028 and U+2029 too), escapes skip a whole
//! character (or a `\r\n` line continuation), and a `/` is a regular
//! expression exactly where an expression begins:
//! - after an operator, an opening bracket, `,`, `;`, `=>`, or a reserved
//!   word that an expression follows (`return`, `typeof`, `else`, …);
//! - after the `)` of an `if`/`while`/`for`/`with`/`switch`/`catch` head;
//! - at the start of a statement: after a block's `}`, a label, or a line
//!   break where a semicolon is inserted;
//! - after `of` in a `for` head.
//!
//! It is a division after an operand: an identifier (a word that is a
//! keyword only in some places, like `get` or `type`, counts as one), a
//! literal, `)`, `]`, and the `}` of an object literal or of a function or
//! class expression. Which braces are blocks is decided where they open:
//! a brace at the start of a statement, after a head, `=>`, `else`, `do`,
//! `try`, `finally`, a declaration's name or parameters, or inside a `type`
//! alias is a block; one where an expression is expected is an object
//! literal; the body of `function` or `class` follows whether the keyword
//! began a statement.
//!
//! The walk's state is here; what each token does to it is in `grammar`,
//! and what the scan skips over is in `lex`.

mod grammar;
mod lex;

use lex::WORD_START_ASCII;
#[cfg(test)]
mod tests;

/// The deepest point of a program, or where it crossed the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Nesting {
    /// The program nests at most this deep.
    Within(usize),
    /// The program nests deeper than the limit; the byte offset of the
    /// token that crossed it.
    TooDeep {
        /// Where the limit was crossed.
        offset: usize,
    },
}

/// Measures how deeply `source` nests, stopping at the first point deeper
/// than `limit`.
pub(crate) fn measure(source: &str, limit: usize) -> Nesting {
    let mut scanner = Scanner::new(source.as_bytes(), limit);
    match scanner.run() {
        Ok(()) => Nesting::Within(scanner.deepest),
        Err(offset) => Nesting::TooDeep { offset },
    }
}

/// What a parenthesis opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Head {
    /// A grouping, a call's arguments, parameters.
    #[default]
    None,
    /// The head of `if`, `while`, `with`, `switch` or `catch`: a body
    /// follows.
    Statement,
    /// The head of `for`: a body follows, and `of` is a keyword inside.
    For,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    /// The program itself, the body the other levels nest in.
    Root,
    Paren(Head),
    Bracket,
    /// A block: a statement's, a function's or a class's body.
    Block,
    /// An object literal, or the body of a function or class expression:
    /// an operand once closed.
    Object,
    /// A template literal's `${ … }`.
    Substitution,
}

/// What a declaration keyword makes of the next `{` at its level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Body {
    Block,
    Object,
}

#[derive(Debug)]
struct Level {
    group: Group,
    /// The depth of this level itself.
    base: usize,
    /// Tokens since the current expression or statement began.
    chain: usize,
    /// `chain` when the last statement ended, in case an `else` continues it.
    before_end: usize,
    /// A statement ended (after a `;`, a block or a line break where a
    /// semicolon is inserted), unless the next token is `else`.
    ending: bool,
    /// A statement head just closed: its body comes next, even on a new line.
    body_next: bool,
    /// What the next `{` at this level is, after `function`, `class`,
    /// `interface`, `enum`, `namespace` or `module`.
    body: Option<Body>,
    /// Inside a `type` alias: its braces are types, and it ends like a
    /// statement.
    type_alias: bool,
    /// `?`s of conditionals not yet matched by their `:`.
    conditionals: usize,
    /// After `case` or `default`: the next `:` ends a label.
    case_label: bool,
}

impl Level {
    fn new(group: Group, base: usize) -> Self {
        Self {
            group,
            base,
            chain: 0,
            before_end: 0,
            ending: false,
            body_next: false,
            body: None,
            type_alias: false,
            conditionals: 0,
            case_label: false,
        }
    }

    fn depth(&self) -> usize {
        self.base + self.chain
    }
}

/// What the previous token was, as far as the next one needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Previous {
    /// Nothing yet, an operator, an opening bracket, `,`, `;`, a block's
    /// `}`, a label: an expression or a statement may begin here.
    Start,
    /// An identifier, literal, closing bracket or an expression's `}`: an
    /// operand just ended.
    Operand,
    /// A reserved word after which an expression begins (`return`,
    /// `typeof`, `else`, …): a `/` is a regular expression.
    Keyword,
    /// A word that is a keyword only in some places (`of`, `get`, `type`,
    /// `as`, …): it may be an identifier, so a `/` after it is read as a
    /// division, and a line break after it ends nothing.
    Word,
    /// `.` or `?.`: the next word is a property name, whatever it spells.
    Dot,
    /// The closing parenthesis of a statement head.
    HeadEnd,
}

/// How a token relates to the statement before it, for line breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    /// Continues whatever came before: a binary operator, `.`, `(`, `[`, a
    /// template, `,`, `;`, a closer, `=>`, `?`, `:`.
    Continuation,
    /// Can begin a new statement: an identifier, keyword, literal, `{`, a
    /// prefix operator.
    Beginning,
    /// `else`, which continues a statement that seemed to have ended.
    Else,
}

/// A word that makes the next one a declaration's name: what it declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Declares {
    /// `type Name`: a type alias.
    TypeAlias,
    /// `interface Name`, `enum Name`, `namespace Name`, `module Name`: a
    /// body block follows.
    Body,
}

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
    limit: usize,
    deepest: usize,
    /// The innermost level, which every token reads and writes.
    level: Level,
    /// The levels it nests in, outermost (the root) first.
    outer: Vec<Level>,
    previous: Previous,
    /// What the previous token tells the next one alone; every token
    /// clears it, in one store, before setting its own.
    cues: Cues,
    /// A line break since the previous token.
    line_break: bool,
    /// The next token begins a statement: after `;`, a block, a head, a
    /// label, `else`, `do`, `try`, `finally`.
    statement_next: bool,
}

/// What a token tells the token right after it, and no other.
#[derive(Debug, Clone, Copy, Default)]
struct Cues {
    /// The previous token was `if`/`while`/… (or `await` after `for`).
    head: Head,
    /// The previous token began a statement or a declaration's modifiers
    /// (`export`, `async`, `declare`, …): a `function` or `class` now is a
    /// declaration.
    declaring: bool,
    /// The previous token was an identifier that began a statement: a `:`
    /// now ends a label.
    label: bool,
    /// The previous token was `type`, `interface`, … at the start of a
    /// declaration: if a name follows, it declares that.
    declares: Option<Declares>,
    /// The previous token was `=>`: a `{` now is the arrow's body.
    arrow: bool,
}

impl<'a> Scanner<'a> {
    fn new(bytes: &'a [u8], limit: usize) -> Self {
        Self {
            bytes,
            at: 0,
            limit,
            deepest: 0,
            level: Level::new(Group::Root, 0),
            outer: Vec::new(),
            previous: Previous::Start,
            cues: Cues::default(),
            line_break: false,
            statement_next: true,
        }
    }

    /// Moves past `n` bytes, or to the end.
    fn skip(&mut self, n: usize) {
        self.at = (self.at + n).min(self.bytes.len());
    }

    fn peek(&self, ahead: usize) -> u8 {
        self.bytes.get(self.at + ahead).copied().unwrap_or(0)
    }

    fn top(&mut self) -> &mut Level {
        &mut self.level
    }

    /// Whether a line terminator starts at the current byte: `\n`, `\r`,
    /// U+2028 or U+2029.
    fn at_line_end(&self) -> bool {
        matches!(self.peek(0), b'\n' | b'\r')
            || (self.peek(0) == 0xe2 && self.peek(1) == 0x80 && matches!(self.peek(2), 0xa8 | 0xa9))
    }

    fn run(&mut self) -> Result<(), usize> {
        if self.bytes.starts_with(b"#!") {
            self.skip_line();
        }
        while let Some(&c) = self.bytes.get(self.at) {
            let start = self.at;
            // Words and spaces, most of a program's bytes, before the
            // dispatch on the rest: two predictable branches rather than
            // an indirect jump that is mispredicted on most tokens.
            if WORD_START_ASCII[usize::from(c)] {
                self.word(start)?;
                continue;
            }
            if c == b' ' {
                self.at += 1;
                while matches!(self.bytes.get(self.at), Some(b' ' | b'\t')) {
                    self.at += 1;
                }
                continue;
            }
            match c {
                b'\n' | b'\r' => {
                    self.line_break = true;
                    self.at += 1;
                }
                // U+2028 and U+2029, three bytes each.
                0xe2 if self.at_line_end() => {
                    self.line_break = true;
                    self.at += 3;
                }
                // Runs of blanks (indentation) in one go.
                b' ' | b'\t' | 0x0b | 0x0c => {
                    self.at += 1;
                    while matches!(self.bytes.get(self.at), Some(b' ' | b'\t')) {
                        self.at += 1;
                    }
                }
                b'/' if self.peek(1) == b'/' => self.skip_line(),
                b'/' if self.peek(1) == b'*' => self.skip_block_comment(),
                b'\'' | b'"' => {
                    self.skip_string(c);
                    self.operand();
                }
                b'`' => {
                    self.at += 1;
                    // A template continues a tag on the line before.
                    self.begin(Token::Continuation);
                    self.deepen(start)?;
                    self.template(start)?;
                }
                b'/' if self.regex_allowed() => {
                    self.skip_regex();
                    self.operand();
                }
                b'0'..=b'9' => {
                    self.skip_number();
                    self.operand();
                }
                b'.' if self.peek(1).is_ascii_digit() => {
                    self.skip_number();
                    self.operand();
                }
                b'(' | b'[' => {
                    self.at += 1;
                    let group = if c == b'(' {
                        Group::Paren(self.cues.head)
                    } else {
                        Group::Bracket
                    };
                    self.begin(Token::Continuation);
                    self.open(group, start)?;
                }
                b'{' => {
                    self.at += 1;
                    let previous = self.previous;
                    let arrow = self.cues.arrow;
                    let statement = self.begin(Token::Beginning);
                    let level = self.top();
                    let block = match level.body.take() {
                        Some(body) => body == Body::Block,
                        None => {
                            statement
                                || arrow
                                || level.type_alias
                                || !matches!(previous, Previous::Start | Previous::Keyword)
                        }
                    };
                    let group = if block { Group::Block } else { Group::Object };
                    self.open(group, start)?;
                    self.statement_next = block;
                }
                b')' | b']' | b'}' => {
                    self.at += 1;
                    self.begin(Token::Continuation);
                    if self.close(start)? {
                        // A `}` that ends a substitution: the template goes on.
                        self.template(start)?;
                    }
                }
                b';' => {
                    self.at += 1;
                    self.begin(Token::Continuation);
                    self.end_statement();
                    self.previous = Previous::Start;
                }
                b',' => {
                    self.at += 1;
                    self.begin(Token::Continuation);
                    self.top().chain = 0;
                    self.previous = Previous::Start;
                }
                b':' => {
                    self.at += 1;
                    let label = self.cues.label;
                    self.begin(Token::Continuation);
                    let level = self.top();
                    if level.conditionals > 0 {
                        level.conditionals -= 1;
                    } else if std::mem::take(&mut level.case_label) || label {
                        // A label, or `case x:`: a statement follows.
                        self.statement_next = true;
                    }
                    self.previous = Previous::Start;
                    self.deepen(start)?;
                }
                c if c.is_ascii_alphabetic()
                    || c == b'_'
                    || c == b'$'
                    || c == b'\\'
                    || c == b'#'
                    || c >= 0x80 =>
                {
                    self.word(start)?;
                }
                _ => self.punctuator(start)?,
            }
        }
        Ok(())
    }
}
