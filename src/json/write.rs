//! Writing JSON text: string literals as serde_json writes them.

/// Writes a JSON string literal (with quotes) for `s`.
pub fn json_str(out: &mut Vec<u8>, s: &str) {
    // Most strings (ids, paths, times) need no escape: copied as they are.
    // serde_json escapes exactly `"`, `\\` and the control characters below 0x20.
    // No early exit: the test over every byte vectorises, and these strings are short.
    if s.bytes().fold(true, |plain, b| plain & (b >= 0x20) & (b != b'"') & (b != b'\\')) {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
        return;
    }
    // serde_json's escaping cannot fail when writing into a Vec.
    let _ = serde_json::to_writer(&mut *out, s);
}
