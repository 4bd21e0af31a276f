//! Cards as small integers: `rank * 4 + suit`, ranks 2..A as 0..12, suits
//! clubs, diamonds, hearts, spades; the jokers of a 54-card deck are 52 and 53.
//! An empty board position is -1 (as `i8`).

/// Real cards in a standard deck.
pub const DECK: usize = 52;
/// The two jokers of the `joker54` deck.
pub const JOKER_1: u8 = 52;
pub const JOKER_2: u8 = 53;
/// An empty board position.
pub const EMPTY: i8 = -1;
/// Cards on a finished board, and each row's slice of the flat layout.
pub const BOARD: usize = 13;
pub const ROW_SIZES: [usize; 3] = [3, 5, 5];
pub const ROW_START: [usize; 3] = [0, 3, 8];
/// Destination codes of a dealt card: rows 0 top, 1 middle, 2 bottom, 3 discard.
pub const DISCARD: u8 = 3;

#[inline]
pub fn rank(card: u8) -> u8 {
    card >> 2
}

#[inline]
pub fn suit(card: u8) -> u8 {
    card & 3
}

#[inline]
pub fn is_joker(card: u8) -> bool {
    card as usize >= DECK
}

/// `As` for 51, `X1`/`X2` for the jokers (messages and tests).
pub fn format_card(card: u8) -> String {
    match card {
        JOKER_1 => "X1".into(),
        JOKER_2 => "X2".into(),
        c if (c as usize) < DECK => {
            let ranks = b"23456789TJQKA";
            let suits = b"cdhs";
            format!(
                "{}{}",
                ranks[rank(c) as usize] as char,
                suits[suit(c) as usize] as char
            )
        }
        c => format!("#{c}"),
    }
}

/// The card of a text like `As` or `Td` (tests and examples).
pub fn parse_card(text: &str) -> Option<u8> {
    let bytes = text.as_bytes();
    if bytes.len() != 2 {
        return None;
    }
    let rank = b"23456789TJQKA".iter().position(|&c| c == bytes[0])?;
    let suit = b"cdhs".iter().position(|&c| c == bytes[1])?;
    Some((rank * 4 + suit) as u8)
}

/// Cards from a space-separated text (tests and examples); panics on a bad card.
pub fn cards(text: &str) -> Vec<u8> {
    text.split_whitespace()
        .map(|t| parse_card(t).unwrap_or_else(|| panic!("bad card {t}")))
        .collect()
}
