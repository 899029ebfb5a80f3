//! The cursor over one line's text: white space, identifiers, words and numbers.

use crate::text::preprocess::{is_ident, is_ident_start};

/// A line's parse result; the error is a 0-based column of the line and a message.
pub(super) type LineResult<T> = Result<T, (usize, String)>;

pub(super) struct Cursor<'a> {
    pub(super) s: &'a str,
    pub(super) pos: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(s: &'a str) -> Self {
        Cursor { s, pos: 0 }
    }
    pub(super) fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c')) {
            self.pos += 1;
        }
    }
    pub(super) fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.pos).copied()
    }
    pub(super) fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    pub(super) fn expect(&mut self, c: u8, what: &str) -> LineResult<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err((self.pos, format!("expected {what}")))
        }
    }
    pub(super) fn ident(&mut self) -> Option<&'a str> {
        let start = self.pos;
        if !self.peek().is_some_and(is_ident_start) {
            return None;
        }
        while self.peek().is_some_and(is_ident) {
            self.pos += 1;
        }
        Some(&self.s[start..self.pos])
    }
    /// A token of identifier characters, digits allowed first (`2d`, swizzle letters).
    pub(super) fn word(&mut self) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(is_ident) {
            self.pos += 1;
        }
        &self.s[start..self.pos]
    }
    pub(super) fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }
    pub(super) fn at_end(&mut self) -> bool {
        self.ws();
        self.pos >= self.s.len()
    }
    /// A numeric literal as written: digits, `.`, exponent, `f` suffix, or `0x` hex.
    pub(super) fn number(&mut self) -> Option<&'a str> {
        self.ws();
        let start = self.pos;
        let b = self.s.as_bytes();
        if self.rest().starts_with("0x") || self.rest().starts_with("0X") {
            self.pos += 2;
            while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                self.pos += 1;
            }
            return Some(&self.s[start..self.pos]);
        }
        while self.peek().is_some_and(|c| c.is_ascii_digit() || c == b'.') {
            self.pos += 1;
        }
        if self.pos == start {
            return None;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            let save = self.pos;
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if b.get(self.pos).is_some_and(|c| c.is_ascii_digit()) {
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.pos += 1;
                }
            } else {
                self.pos = save;
            }
        }
        if matches!(self.peek(), Some(b'f' | b'F')) {
            self.pos += 1;
        }
        Some(&self.s[start..self.pos])
    }
}
