//! A ledger line read for ranking without building its value: whether `JSON.parse` takes it, and
//! where the five top-level fields `query` ranks by are (their raw JSON text). Most lines of a
//! large ledger only need a score, and building every lesson's value cost `query` nine tenths of
//! its time. The skim is exact only where it answers: anything it is not sure of — text that is
//! not JSON (whose error message only the parser gives), bytes that are not UTF-8, an escaped
//! key, deep nesting — is `None`, and the caller parses the line whole. Pure: bytes in, slices
//! out.

/// How deep the skim follows nesting; deeper lines are parsed whole.
const MAX_DEPTH: usize = 64;

/// The keys of the fields [`Skim::Object`] holds, in its order.
const SKIMMED: [&[u8]; 5] = [b"id", b"created", b"pattern", b"invalidates", b"supersedes"];

/// A line `JSON.parse` takes, as `query` sees it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Skim<'a> {
    /// `null`.
    Null,
    /// A value that is not an object: it has none of the fields.
    NotObject,
    /// An object: the last value (`JSON.parse` keeps the last of repeated keys) of `id`,
    /// `created`, `pattern`, `invalidates` and `supersedes`, in that order.
    Object([Option<Field<'a>>; 5]),
}

/// A field's value: its raw JSON text, and whether that is plain — no escape and no byte above
/// 0x7F anywhere in it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Field<'a> {
    pub raw: &'a [u8],
    pub plain: bool,
}

impl<'a> Field<'a> {
    /// The value of a plain string: the text between its quotes.
    pub(crate) fn plain_string(&self) -> Option<&'a [u8]> {
        match self.plain {
            true => self.raw.strip_prefix(b"\"")?.strip_suffix(b"\""),
            false => None,
        }
    }
}

/// The line skimmed, or `None` when only the parser can say what it is.
pub(crate) fn skim(line: &[u8]) -> Option<Skim<'_>> {
    let mut s = Scanner {
        text: line,
        at: 0,
        non_ascii: false,
        odd: 0,
    };
    s.space();
    let mut fields = [None; 5];
    let shape = match s.peek()? {
        b'{' => s
            .container(1, b'}', Some(&mut fields))
            .map(|()| Skim::Object(fields))?,
        b'n' => {
            s.literal(b"null")?;
            Skim::Null
        }
        _ => {
            s.value(1)?;
            Skim::NotObject
        }
    };
    s.space();
    if s.at != line.len() {
        return None;
    }
    // Text that is not UTF-8 is read with replacement characters: the parser's business.
    if s.non_ascii && std::str::from_utf8(line).is_err() {
        return None;
    }
    Some(shape)
}

struct Scanner<'a> {
    text: &'a [u8],
    at: usize,
    /// A byte above 0x7F was seen (inside a string; anywhere else it is an error).
    non_ascii: bool,
    /// How many escapes and bytes above 0x7F were seen.
    odd: usize,
}

/// The bytes among these 16 that end a run of plain string bytes, one bit each (bit `i` for
/// byte `i`): a quote, a backslash, a control character, or a byte above 0x7F (signed, those two
/// are the bytes below 0x20).
#[cfg(target_arch = "x86_64")]
fn stops(chunk: &[u8; 16]) -> u32 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86_64 (these intrinsics need no more), and the unaligned load
    // reads exactly the 16 bytes of `chunk`.
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr().cast());
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        let low = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), low)) as u32
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn stops(chunk: &[u8; 16]) -> u32 {
    chunk.iter().enumerate().fold(0, |mask, (i, &b)| {
        mask | u32::from((b == b'"') | (b == b'\\') | ((b as i8) < 0x20)) << i
    })
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.text.get(self.at..end)? == word).then(|| self.at = end)
    }

    /// Past the string that starts here (at its `"`); whether it held an escape.
    fn string(&mut self) -> Option<bool> {
        self.at += 1;
        let mut escaped = false;
        loop {
            // Sixteen bytes at a time up to the next byte that is not plain.
            while let Some(chunk) = self
                .text
                .get(self.at..self.at + 16)
                .and_then(|c| <&[u8; 16]>::try_from(c).ok())
            {
                match stops(chunk) {
                    0 => self.at += 16,
                    mask => {
                        self.at += mask.trailing_zeros() as usize;
                        break;
                    }
                }
            }
            match self.peek()? {
                b'"' => {
                    self.at += 1;
                    return Some(escaped);
                }
                b'\\' => {
                    escaped = true;
                    self.odd += 1;
                    self.at += 1;
                    match self.peek()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 1,
                        b'u' => {
                            let hex = self.text.get(self.at + 1..self.at + 5)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            self.at += 5;
                        }
                        _ => return None,
                    }
                }
                0..=0x1F => return None,
                0x80.. => {
                    self.non_ascii = true;
                    self.odd += 1;
                    self.at += 1;
                }
                _ => self.at += 1,
            }
        }
    }

    fn digits(&mut self) -> Option<()> {
        let start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        (self.at > start).then_some(())
    }

    fn number(&mut self) -> Option<()> {
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.digits()?,
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            self.digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            self.digits()?;
        }
        Some(())
    }

    /// Past one value (after any space), at nesting `depth` (the top level is 1).
    fn value(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' => self.container(depth, b'}', None),
            b'[' => self.container(depth, b']', None),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// Past an object or an array; nested ones are followed to [`MAX_DEPTH`]. Given `fields`
    /// (the top-level object's), the raw values of the fields [`Skim::Object`] holds are kept.
    fn container(
        &mut self,
        depth: usize,
        close: u8,
        mut fields: Option<&mut [Option<Field<'a>>; 5]>,
    ) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.at += 1;
        self.space();
        if self.peek()? == close {
            self.at += 1;
            return Some(());
        }
        loop {
            self.space();
            let mut slot = None;
            if close == b'}' {
                if self.peek()? != b'"' {
                    return None;
                }
                let key_start = self.at + 1;
                let escaped = self.string()?;
                if let Some(fields) = fields.as_deref_mut() {
                    // An escaped key may spell a field's name: the parser decodes it.
                    if escaped {
                        return None;
                    }
                    let key = &self.text[key_start..self.at - 1];
                    slot = SKIMMED.iter().zip(fields).find(|(k, _)| **k == key);
                }
                self.space();
                self.eat(b':')?;
                self.space();
            }
            let (start, odd) = (self.at, self.odd);
            self.value(depth + 1)?;
            if let Some((_, field)) = slot {
                *field = Some(Field {
                    raw: &self.text[start..self.at],
                    plain: self.odd == odd,
                });
            }
            self.space();
            match self.peek()? {
                b',' => self.at += 1,
                b if b == close => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_the_parser_takes_and_refuses() {
        let line =
            br#"{"id":"L1","x":{"id":"no"},"pattern":["a","b"],"id":"L2","created":"2026-01-01"}"#;
        let Some(Skim::Object(fields)) = skim(line) else {
            panic!("skimmed")
        };
        assert_eq!(fields[0].and_then(|f| f.plain_string()), Some(&b"L2"[..]));
        assert_eq!(fields[2].map(|f| f.raw), Some(&br#"["a","b"]"#[..]));
        assert_eq!(fields[3], None);
        let Some(Skim::Object(fields)) = skim("{\"id\":\"L\\u0031\",\"created\":\"é\"}".as_bytes())
        else {
            panic!("skimmed")
        };
        assert_eq!(
            fields.map(|f| f.map(|f| f.plain)),
            [Some(false), Some(false), None, None, None]
        );
        assert_eq!(skim(b" null\t"), Some(Skim::Null));
        assert_eq!(skim(b"[1,-0.5e+3,true,{}]"), Some(Skim::NotObject));
        for bad in [
            &b"{"[..],
            b"{\"a\":1,}",
            b"[1,]",
            b"01",
            b"1.",
            b"\"\x01\"",
            b"\"\\x\"",
            b"\"\\u12g4\"",
            b"{\"\\u0069d\":1}",
            b"\"\xff\"",
            b"\xef\xbb\xbf{}",
            b"nul",
            b"{} x",
        ] {
            assert_eq!(skim(bad), None, "{}", String::from_utf8_lossy(bad));
        }
        let deep = format!("{}{}", "[".repeat(70), "]".repeat(70));
        assert_eq!(skim(deep.as_bytes()), None);
    }
}
