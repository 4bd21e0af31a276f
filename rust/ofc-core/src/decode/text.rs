//! JSON values the definitions turn into text with ``str(value)``, and cards.
//!
//! Python's ``str`` of a string is itself, of an integer its decimals and of
//! ``null`` ``"None"``; a float or a container would need Python's own
//! spelling, so those are decode errors here (the hand goes to the definition).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};

/// A field read with ``str()``: absent, null, a string or an integer.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Text<'a> {
    #[default]
    Absent,
    Null,
    Str(Cow<'a, str>),
    Int(String),
}

impl<'a> Text<'a> {
    /// ``str(data.get(key, default))``.
    pub fn text_or(&self, default: &'a str) -> Cow<'a, str> {
        match self {
            Text::Absent => Cow::Borrowed(default),
            Text::Null => Cow::Borrowed("None"),
            Text::Str(s) => s.clone(),
            Text::Int(s) => Cow::Owned(s.clone()),
        }
    }

    /// ``None if data.get(key) is None else str(data[key])``.
    pub fn text_or_none(&self) -> Option<Cow<'a, str>> {
        match self {
            Text::Absent | Text::Null => None,
            Text::Str(s) => Some(s.clone()),
            Text::Int(s) => Some(Cow::Owned(s.clone())),
        }
    }

    /// Python's truth of the value (``if data.get(key)``).
    pub fn truthy(&self) -> bool {
        match self {
            Text::Absent | Text::Null => false,
            Text::Str(s) => !s.is_empty(),
            Text::Int(s) => s != "0",
        }
    }
}

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string, an integer or null")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Text::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Text::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Text::Str(Cow::Owned(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Text::Int(v.to_string()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Text::Int(v.to_string()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Text::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Text::Null)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TextVisitor)
    }
}

/// A card as the open format may give it: hidden (null), an id, or a spelling.
#[derive(Debug, Clone, PartialEq)]
pub enum Card<'a> {
    Hidden,
    Id(i64),
    Spelled(Cow<'a, str>),
}

struct CardVisitor;

impl<'de> Visitor<'de> for CardVisitor {
    type Value = Card<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a card: a string, an id or null")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Card::Spelled(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Card::Spelled(Cow::Owned(v.to_owned())))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Card::Id(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Card::Id(i64::try_from(v).unwrap_or(i64::MAX)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Card::Hidden)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Card::Hidden)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Card<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CardVisitor)
    }
}

/// An integer field where absent and null differ (``orderIndex``); anything else is an error.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum Int {
    #[default]
    Absent,
    Null,
    Value(i64),
}

struct IntVisitor;

impl<'de> Visitor<'de> for IntVisitor {
    type Value = Int;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an integer or null")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Int::Value(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Int::Value(i64::try_from(v).unwrap_or(i64::MAX)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Int::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Int::Null)
    }
}

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(IntVisitor)
    }
}

/// A struct read only from a JSON object: serde's derive would also take an array of
/// the fields in order, which the definitions (``isinstance(x, dict)``) refuse.
#[derive(Debug)]
pub struct Obj<T>(pub T);

struct ObjVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjVisitor<T> {
    type Value = Obj<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Obj)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ObjVisitor(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Probe<'a> {
        #[serde(default, borrow)]
        a: Text<'a>,
    }

    fn text(json: &str) -> Option<Text<'_>> {
        serde_json::from_str::<Probe<'_>>(json).ok().map(|p| p.a)
    }

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Pair {
        a: i64,
    }

    #[test]
    fn objects_only() {
        assert!(serde_json::from_str::<Obj<Pair>>(r#"{"a": 1}"#).is_ok());
        // the derive alone reads [1] as Pair { a: 1 }; the definition refuses it
        assert!(serde_json::from_str::<Pair>("[1]").is_ok());
        assert!(serde_json::from_str::<Obj<Pair>>("[1]").is_err());
    }

    #[test]
    fn text_reads_as_python_str_does() {
        assert_eq!(text("{}").unwrap().text_or(""), "");
        assert_eq!(text(r#"{"a":null}"#).unwrap().text_or(""), "None");
        // serde_json reads -0 as the float -0.0 (Python: the int 0): the definition's
        assert_eq!(text(r#"{"a":-0}"#), None);
        assert_eq!(text(r#"{"a":-3}"#).unwrap().text_or(""), "-3");
        assert_eq!(text(r#"{"a":"x\"y"}"#).unwrap().text_or(""), "x\"y");
        assert_eq!(text(r#"{"a":1.5}"#), None);
        assert_eq!(text(r#"{"a":true}"#), None);
        assert!(!text(r#"{"a":0}"#).unwrap().truthy());
        // a lone surrogate is no UTF-8: serde refuses it, so the definition reads the hand
        assert_eq!(text(r#"{"a":"\ud800"}"#), None);
    }
}
