//! Sizes: the parsers of a number of bytes (`--max-bytes`, `CI_MAX_BYTES`,
//! `CI_CACHE_MAX_BYTES`), a leaf below the command line and the cache, which
//! both read them ([`crate::cli::values`] re-exports them).
//!
//! A size is a whole number of bytes with an optional suffix `k`/`K`
//! (×1024), `m`/`M` (×1024²) or `g`/`G` (×1024³); `1k` = `1K` = 1024.

/// The smallest `--max-bytes` (and `CI_MAX_BYTES`) accepted: 1 KiB.
///
/// The budget never cuts the envelope (`event`, `workspace`, `timestamp`,
/// `ci`) or the protected members of `data` (`session_id`, `usage`, …), so a
/// record cannot be made smaller than those: its *floor*. The floor varies
/// per record (the capture path is in `ci`, a writer may put anything in
/// `usage`), so no budget is large enough for every possible record; 1 KiB
/// is above the floor of every record of the shipped fixtures (the largest,
/// 653 bytes, is an Amplifier record with a long capture path) and of the
/// records the writers produce in practice. A record whose floor exceeds the
/// budget is printed at its floor (see `README.md`, "Safe output").
pub const MIN_MAX_BYTES: usize = 1024;

const SIZE_FORMS: &str = "expected a whole number of bytes with an optional k, M or G suffix (1024-based: 1k = 1024)";

/// Parses a size: digits, then an optional `k`/`K`, `m`/`M` or `g`/`G`
/// (powers of 1024). Surrounding whitespace is ignored.
///
/// ```
/// use ci_tools::units::size;
/// assert_eq!(size("1k"), Ok(1024));
/// assert_eq!(size("2M"), Ok(2 << 20));
/// assert!(size("1.5k").is_err());
/// ```
pub fn size(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim();
    let (digits, mult) = match t.as_bytes().last().map(u8::to_ascii_uppercase) {
        Some(b'K') => (&t[..t.len() - 1], 1u64 << 10),
        Some(b'M') => (&t[..t.len() - 1], 1 << 20),
        Some(b'G') => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(SIZE_FORMS.to_string());
    }
    digits.parse::<u64>().ok().and_then(|n| n.checked_mul(mult)).ok_or_else(|| format!("too large; {SIZE_FORMS}"))
}

/// Parses a `--max-bytes` budget: a [`size`] of at least [`MIN_MAX_BYTES`].
///
/// ```
/// use ci_tools::units::max_bytes;
/// assert_eq!(max_bytes("4k"), Ok(4096));
/// assert!(max_bytes("100").unwrap_err().contains("1024"));
/// ```
pub fn max_bytes(s: &str) -> std::result::Result<usize, String> {
    let n = size(s)?;
    let n = usize::try_from(n).map_err(|_| format!("too large; {SIZE_FORMS}"))?;
    if n < MIN_MAX_BYTES {
        return Err(format!(
            "below the smallest budget, {MIN_MAX_BYTES} bytes (1k): a record's envelope and protected fields are never cut (use --full for no budget)"
        ));
    }
    Ok(n)
}
