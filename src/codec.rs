//! The little-endian pieces binary files are made of (the cache's files, the
//! binary form of ci-agg's states, a writer's cached peek): writing them, and
//! reading them back with every read checked against the bytes left (a cache
//! file is input like any other: a damaged one is refused, never a panic).

/// Appends a count or length as a `u32` (saturated: no cache holds 4 G of anything).
pub(crate) fn put_len(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
}

/// Appends `b` after its length.
pub(crate) fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_len(out, b.len());
    out.extend_from_slice(b);
}

/// Appends an optional text (a byte 0, or 1 and the text).
pub(crate) fn put_opt_text(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        None => out.push(0),
        Some(s) => {
            out.push(1);
            put_bytes(out, s.as_bytes());
        }
    }
}

/// Appends `n` in LEB128: seven bits a byte, low first (small numbers,
/// such as the gaps between lines, take one byte).
pub(crate) fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Reads front to back.
pub struct Reader<'a>(pub &'a [u8]);

impl<'a> Reader<'a> {
    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    /// How many bytes are left.
    pub fn left(&self) -> usize {
        self.0.len()
    }

    /// A byte.
    pub fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    /// A `u32` count or length, refused when more than the bytes left (every
    /// counted item takes at least one byte).
    pub fn count(&mut self) -> Option<usize> {
        let n = u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize;
        (n <= self.0.len()).then_some(n)
    }

    /// A `u32` index into a table of `len` items, refused when out of it.
    /// (Not a [`Reader::count`]: an index is not bounded by the bytes left,
    /// and one near the end of a state may well exceed them.)
    pub fn index(&mut self, len: usize) -> Option<usize> {
        let n = u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize;
        (n < len).then_some(n)
    }

    /// A `u64`.
    pub fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    /// A LEB128 number ([`put_varint`]); `None` past ten bytes or 64 bits.
    pub fn varint(&mut self) -> Option<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            let bits = u64::from(b & 0x7f);
            if shift == 63 && bits > 1 {
                return None;
            }
            n |= bits << shift;
            if b & 0x80 == 0 {
                return Some(n);
            }
        }
        None
    }

    /// An `i128`.
    pub fn i128(&mut self) -> Option<i128> {
        Some(i128::from_le_bytes(self.take(16)?.try_into().ok()?))
    }

    /// Bytes after their length.
    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.count()?;
        self.take(n)
    }

    /// UTF-8 text after its length.
    pub fn text(&mut self) -> Option<String> {
        String::from_utf8(self.bytes()?.to_vec()).ok()
    }

    /// An optional text ([`put_opt_text`]; `None` outside: not one).
    pub fn opt_text(&mut self) -> Option<Option<String>> {
        match self.u8()? {
            0 => Some(None),
            1 => self.text().map(Some),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Reader;

    #[test]
    fn an_index_is_bounded_by_its_table_not_by_the_bytes_left() {
        let bytes = 99u32.to_le_bytes();
        // A count of 99 with no byte after it is refused; an index of 99
        // into a table of 100 is not (a state's last copy names its key so).
        assert_eq!(Reader(&bytes).count(), None);
        assert_eq!(Reader(&bytes).index(100), Some(99));
        assert_eq!(Reader(&bytes).index(99), None);
        assert_eq!(Reader(&bytes[..3]).index(100), None);
    }
}
