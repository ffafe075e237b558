//! What each token does to the walk: statement ends, levels opened and
//! closed, and the keywords that change what follows.

use super::lex::{WORD_ASCII, is_identifier_byte};
use super::{Body, Cues, Declares, Group, Head, Level, Previous, Scanner, Token};

impl Scanner<'_> {
    /// Applies a line break or a pending statement end before a token;
    /// returns whether the token begins a statement. Every token calls it
    /// first.
    pub(super) fn begin(&mut self, token: Token) -> bool {
        let line_break = std::mem::take(&mut self.line_break);
        let previous = self.previous;
        let mut statement = std::mem::take(&mut self.statement_next);
        self.cues = Cues::default();
        let level = self.top();
        if std::mem::take(&mut level.body_next) {
            // The body of a statement head: nothing has ended.
            level.ending = false;
            return true;
        }
        if line_break && previous == Previous::Operand && token != Token::Continuation {
            // A semicolon would be inserted here, unless an `else` follows.
            level.before_end = level.chain;
            level.ending = true;
        }
        if std::mem::take(&mut level.ending) {
            if token == Token::Else {
                // `if (a) x; else …`: the `if` goes on.
                level.chain = level.before_end;
                statement = false;
            } else {
                level.chain = 0;
                level.conditionals = 0;
                level.case_label = false;
                level.type_alias = false;
                level.body = None;
                statement = true;
            }
        }
        statement
    }

    /// A `;`, or a block's end: the statement may be over.
    pub(super) fn end_statement(&mut self) {
        let level = self.top();
        level.before_end = level.chain;
        level.ending = true;
        self.statement_next = true;
    }

    /// Counts one token that may deepen the current level.
    pub(super) fn deepen(&mut self, start: usize) -> Result<(), usize> {
        let level = self.top();
        level.chain += 1;
        let depth = level.depth();
        self.reached(depth, start)
    }

    pub(super) fn reached(&mut self, depth: usize, start: usize) -> Result<(), usize> {
        self.deepest = self.deepest.max(depth);
        if depth > self.limit {
            return Err(start);
        }
        Ok(())
    }

    pub(super) fn operand(&mut self) {
        self.begin(Token::Beginning);
        self.previous = Previous::Operand;
    }

    pub(super) fn open(&mut self, group: Group, start: usize) -> Result<(), usize> {
        let base = self.top().depth() + 1;
        let inner = Level::new(group, base);
        self.outer.push(std::mem::replace(&mut self.level, inner));
        self.previous = Previous::Start;
        self.reached(base, start)
    }

    /// Closes the innermost level; returns whether it was a template
    /// substitution (so the template's text continues).
    pub(super) fn close(&mut self, start: usize) -> Result<bool, usize> {
        let Some(outer) = self.outer.pop() else {
            // A stray closer at the root: the parser will report it.
            self.previous = Previous::Operand;
            return Ok(false);
        };
        let group = std::mem::replace(&mut self.level, outer).group;
        match group {
            Group::Substitution => {
                self.previous = Previous::Operand;
                Ok(true)
            }
            Group::Paren(Head::Statement | Head::For) => {
                self.previous = Previous::HeadEnd;
                self.top().body_next = true;
                Ok(false)
            }
            Group::Block => {
                // A block may have ended a statement; the next token decides.
                self.previous = Previous::Start;
                self.end_statement();
                Ok(false)
            }
            // A closed group is an operand: a call, an index, a grouping, an
            // object. One more link in the chain.
            Group::Paren(Head::None) | Group::Bracket | Group::Object | Group::Root => {
                self.previous = Previous::Operand;
                self.deepen(start).map(|()| false)
            }
        }
    }

    /// Scans a template literal's text after its opening backtick (or after
    /// a substitution's `}`), up to its end or the next `${`.
    pub(super) fn template(&mut self, start: usize) -> Result<(), usize> {
        while self.at < self.bytes.len() {
            match self.bytes[self.at] {
                b'\\' => self.skip_escape(),
                b'`' => {
                    self.at += 1;
                    self.previous = Previous::Operand;
                    return Ok(());
                }
                b'$' if self.peek(1) == b'{' => {
                    self.at += 2;
                    return self.open(Group::Substitution, start);
                }
                _ => self.at += 1,
            }
        }
        Ok(())
    }

    pub(super) fn regex_allowed(&self) -> bool {
        matches!(
            self.previous,
            Previous::Start | Previous::Keyword | Previous::HeadEnd
        )
    }

    pub(super) fn word(&mut self, start: usize) -> Result<(), usize> {
        while let Some(&c) = self.bytes.get(self.at) {
            // ASCII identifier bytes first: they are most of a word.
            if WORD_ASCII[usize::from(c)] {
                self.at += 1;
            } else if c == b'\\' {
                self.skip_escape();
            } else if c < 0x80 || self.at_line_end() {
                // Any other ASCII byte, or U+2028 or U+2029, ends it.
                break;
            } else {
                self.at += 1;
            }
        }
        let word = &self.bytes[start..self.at];
        let (previous, declaring, declares) =
            (self.previous, self.cues.declaring, self.cues.declares);
        if previous == Previous::Dot {
            // A property name: `x.return`, `x.if`.
            self.operand();
            return Ok(());
        }
        let Some(kind) = keyword(word) else {
            // An identifier. After `type`/`interface`/…, it is the name
            // being declared; at a statement's start, maybe a label.
            let statement = self.begin(Token::Beginning);
            match declares {
                Some(Declares::TypeAlias) => self.top().type_alias = true,
                Some(Declares::Body) => self.top().body = Some(Body::Block),
                None => {}
            }
            self.previous = Previous::Operand;
            self.cues.label = statement;
            return Ok(());
        };
        let token = match kind {
            Kind::Else => Token::Else,
            Kind::Infix | Kind::Of => Token::Continuation,
            _ => Token::Beginning,
        };
        let statement = self.begin(token);
        let declaration = statement || declaring;
        self.previous = Previous::Keyword;
        match kind {
            Kind::Operand => {
                self.previous = Previous::Operand;
                return Ok(());
            }
            Kind::Head(head) => self.cues.head = head,
            Kind::Else | Kind::Block => self.statement_next = true,
            Kind::Case => self.top().case_label = true,
            Kind::Callable => {
                // `function` and `class` declare when they begin a
                // statement, and are expressions anywhere else.
                self.top().body = Some(if declaration {
                    Body::Block
                } else {
                    Body::Object
                });
            }
            Kind::Modifier => {
                self.cues.declaring = declaration;
                self.previous = Previous::Word;
                self.cues.label = statement;
            }
            Kind::Declares(declares) => {
                if declaration {
                    self.cues.declares = Some(declares);
                }
                self.previous = Previous::Word;
                self.cues.label = statement;
            }
            Kind::Of => {
                if !matches!(self.top().group, Group::Paren(Head::For)) {
                    self.previous = Previous::Word;
                }
            }
            Kind::Await => {
                // `for await (…)` is a head too.
                if previous == Previous::Keyword && self.head_was_for(start) {
                    self.cues.head = Head::For;
                }
            }
            Kind::Contextual => {
                self.previous = Previous::Word;
                self.cues.label = statement;
            }
            Kind::Reserved | Kind::Infix => {}
        }
        self.deepen(start)
    }

    /// Whether the word before the one at `start` was `for`.
    pub(super) fn head_was_for(&self, start: usize) -> bool {
        let before = self.bytes[..start].trim_ascii_end();
        before.ends_with(b"for")
            && before
                .len()
                .checked_sub(4)
                .is_none_or(|i| !is_identifier_byte(before[i]))
    }

    pub(super) fn punctuator(&mut self, start: usize) -> Result<(), usize> {
        let c = self.bytes[self.at];
        let next = self.peek(1);
        let operand_before = self.previous == Previous::Operand && !self.line_break;
        let (len, token, after) = match (c, next) {
            (b'=', b'>') => (2, Token::Continuation, Previous::Start),
            (b'.', b'.') if self.peek(2) == b'.' => (3, Token::Beginning, Previous::Start),
            (b'?', b'.') if !self.peek(2).is_ascii_digit() => {
                (2, Token::Continuation, Previous::Dot)
            }
            (b'?', b'?') => (2, Token::Continuation, Previous::Start),
            (b'.', _) => (1, Token::Continuation, Previous::Dot),
            // Postfix after an operand; prefix (a new statement) otherwise.
            (b'+', b'+') | (b'-', b'-') if operand_before => {
                (2, Token::Continuation, Previous::Operand)
            }
            (b'+', b'+') | (b'-', b'-') => (2, Token::Beginning, Previous::Start),
            (b'!', b'=') => (2, Token::Continuation, Previous::Start),
            // TypeScript's non-null assertion, `x!`.
            (b'!', _) if operand_before => (1, Token::Continuation, Previous::Operand),
            (b'!' | b'~' | b'@', _) => (1, Token::Beginning, Previous::Start),
            _ => (1, Token::Continuation, Previous::Start),
        };
        self.at += len;
        self.begin(token);
        self.previous = after;
        match (c, next) {
            (b'=', b'>') => self.cues.arrow = true,
            (b'?', b'.' | b'?') => {}
            (b'?', _) => self.top().conditionals += 1,
            _ => {}
        }
        self.deepen(start)
    }
}

/// What a keyword does to the scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A keyword that is a value: `this`, `null`, `true`, `false`, `super`.
    Operand,
    /// A statement head: a parenthesised head, then a body.
    Head(Head),
    /// `else`: continues the `if` before it, and a statement follows.
    Else,
    /// `do`, `try`, `finally`: a statement or block follows.
    Block,
    /// `case`, `default`: a `:` ends the label.
    Case,
    /// `function`, `class`: a body follows.
    Callable,
    /// `export`, `async`, `declare`, `abstract`: modifiers of a declaration.
    Modifier,
    /// `type`, `interface`, `enum`, `namespace`, `module`: if a name
    /// follows, they declare.
    Declares(Declares),
    /// `of`: a keyword in a `for` head, an identifier elsewhere.
    Of,
    /// `await`.
    Await,
    /// A binary operator spelled as a reserved word: `in`, `instanceof`.
    Infix,
    /// Any other reserved word: an expression may follow.
    Reserved,
    /// A word that is a keyword only in some places.
    Contextual,
}

fn keyword(word: &[u8]) -> Option<Kind> {
    Some(match word {
        b"this" | b"null" | b"true" | b"false" | b"super" => Kind::Operand,
        b"if" | b"while" | b"with" | b"switch" | b"catch" => Kind::Head(Head::Statement),
        b"for" => Kind::Head(Head::For),
        b"else" => Kind::Else,
        b"do" | b"try" | b"finally" => Kind::Block,
        b"case" | b"default" => Kind::Case,
        b"function" | b"class" => Kind::Callable,
        b"export" | b"async" | b"declare" | b"abstract" => Kind::Modifier,
        b"type" => Kind::Declares(Declares::TypeAlias),
        b"interface" | b"enum" | b"namespace" | b"module" => Kind::Declares(Declares::Body),
        b"of" => Kind::Of,
        b"await" => Kind::Await,
        b"in" | b"instanceof" => Kind::Infix,
        b"return" | b"typeof" | b"new" | b"delete" | b"void" | b"throw" | b"yield" | b"extends"
        | b"break" | b"continue" | b"const" | b"debugger" | b"import" | b"let" | b"static"
        | b"var" | b"implements" | b"package" | b"private" | b"protected" | b"public" => {
            Kind::Reserved
        }
        b"as" | b"satisfies" | b"is" | b"keyof" | b"readonly" | b"infer" | b"unique"
        | b"asserts" | b"get" | b"set" | b"accessor" | b"override" | b"out" => Kind::Contextual,
        _ => return None,
    })
}
