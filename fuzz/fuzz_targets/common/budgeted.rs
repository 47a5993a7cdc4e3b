//! The input layout of the targets that print an event record with a byte
//! budget (`event_output`, `reread`): two bytes of budget (`u16`, little
//! endian), then the line.

/// The budget and the line, when the input is long enough and the line holds
/// no `\n` (the line reader never yields one).
pub fn split(bytes: &[u8]) -> Option<(usize, &[u8])> {
    let (head, line) = bytes.split_first_chunk::<2>()?;
    (!line.contains(&b'\n')).then_some((usize::from(u16::from_le_bytes(*head)), line))
}
