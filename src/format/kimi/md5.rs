//! MD5 (RFC 1321), only to recompute the names Kimi CLI gives its work-dir
//! folders (`sessions/<md5 of the path>/`): an identifier, not a security
//! check. Written from the RFC's description.

/// Per-round left rotations (RFC 1321 §3.4).
const SHIFT: [u32; 16] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];

/// The sine table: `floor(abs(sin(i + 1)) * 2^32)`.
fn sine(i: usize) -> u32 {
    ((i as f64 + 1.0).sin().abs() * 4_294_967_296.0) as u32
}

/// The MD5 digest of `data` as 32 lower-case hex digits.
pub(super) fn hex(data: &[u8]) -> String {
    let k: Vec<u32> = (0..64).map(sine).collect();
    let mut state: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64).wrapping_mul(8)).to_le_bytes());
    for block in msg.chunks_exact(64) {
        let m: Vec<u32> = block.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
        let [mut a, mut b, mut c, mut d] = state;
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let sum = a.wrapping_add(f).wrapping_add(k[i]).wrapping_add(m[g]);
            let rotated = sum.rotate_left(SHIFT[(i / 16) * 4 + i % 4]);
            (a, d, c) = (d, c, b);
            b = b.wrapping_add(rotated);
        }
        for (s, v) in state.iter_mut().zip([a, b, c, d]) {
            *s = s.wrapping_add(v);
        }
    }
    state.iter().flat_map(|s| s.to_le_bytes()).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::hex;

    #[test]
    fn the_rfc_test_suite() {
        let suite = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            (
                "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
                "57edf4a22be3c955ac49da2e2107b67a",
            ),
        ];
        for (text, digest) in suite {
            assert_eq!(hex(text.as_bytes()), digest, "{text:?}");
        }
    }

    /// Lengths either side of the padding boundaries (digests by Python's hashlib).
    #[test]
    fn padding_boundaries() {
        let suite = [
            (55, "ef1772b6dff9a122358552954ad0df65"),
            (56, "3b0c8ac703f828b04c6c197006d17218"),
            (64, "014842d480b571495a4a0363793f7367"),
            (119, "8a7bd0732ed6a28ce75f6dabc90e1613"),
        ];
        for (n, digest) in suite {
            assert_eq!(hex(&vec![b'a'; n]), digest, "{n} bytes");
        }
    }

    #[test]
    fn a_work_dir_hashes_to_its_kimi_folder() {
        assert_eq!(hex(b"/home/dev/demo"), "caa990f2469364441262014be4057c2a");
    }
}
