//! `WORD_BITS` of derived types and the merged writes of derived `encode`: which runs of
//! small items reach the writer as one word, decided at compile time.

/// How derived `encode` writes each of a run of items (fields, with an enum's tag first) whose
/// [`Encode::WORD_BITS`](crate::Encode::WORD_BITS) are `words`: `0` on its own, `1` as the
/// first word of a group, `2` joined to the group before it; `+ 4` when a group ends with the
/// item (the group is written then). Greedy: an item joins the open group while the group's
/// most bits stay within 64.
pub const fn word_plan<const N: usize>(words: [Option<u32>; N]) -> [u8; N] {
    let mut plan = [0u8; N];
    let mut open = false;
    let mut bits = 0u32;
    let mut i = 0;
    while i < N {
        match words[i] {
            Some(n) if n <= 64 => {
                if open && bits + n <= 64 {
                    bits += n;
                    plan[i] = 2;
                } else {
                    if open {
                        plan[i - 1] += 4;
                    }
                    open = true;
                    bits = n;
                    plan[i] = 1;
                }
            }
            _ => {
                if open {
                    plan[i - 1] += 4;
                }
                open = false;
            }
        }
        i += 1;
    }
    if open {
        plan[N - 1] += 4;
    }
    plan
}

/// `WORD_BITS` of a struct (or an enum variant with its tag): the sum of its items' if every
/// item is a word and the sum fits in 64 bits.
pub const fn word_sum(words: &[Option<u32>]) -> Option<u32> {
    fold(words, true)
}

/// `WORD_BITS` of an enum: the largest of its variants', if every variant has one.
pub const fn word_over(words: &[Option<u32>]) -> Option<u32> {
    fold(words, false)
}

const fn fold(words: &[Option<u32>], sum: bool) -> Option<u32> {
    let mut acc = 0u32;
    let mut i = 0;
    while i < words.len() {
        acc = match words[i] {
            Some(n) if n <= 64 && sum && acc + n <= 64 => acc + n,
            Some(n) if n <= 64 && !sum => {
                if n > acc {
                    n
                } else {
                    acc
                }
            }
            _ => return None,
        };
        i += 1;
    }
    Some(acc)
}
