//! Shared by the fuzz targets that feed a reader in pieces (`lines`, `elements`).

use std::io::{self, Read};

/// A reader that hands out its bytes in the given chunk sizes (cycled); a
/// size of 0 is one `Interrupted` error.
pub struct Chunky<'a> {
    pub data: &'a [u8],
    pub chunks: &'a [u8],
    pub k: usize,
    pub interrupted: bool,
}

impl Read for Chunky<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let step = if self.chunks.is_empty() {
            usize::MAX
        } else {
            let s = self.chunks[self.k % self.chunks.len()];
            self.k += 1;
            usize::from(s)
        };
        if step == 0 && !self.interrupted {
            self.interrupted = true;
            return Err(io::Error::from(io::ErrorKind::Interrupted));
        }
        self.interrupted = false;
        let n = self.data.len().min(step.max(1)).min(out.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}
