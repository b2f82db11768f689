//! Serializing a value cut down to a [`FieldSet`], without building it
//! whole first.
//!
//! `Picked` wraps a value and the fields to keep; serializing it drives the
//! value's own `Serialize` through a serializer that passes on only the
//! struct fields and map entries named, each with its own part of the
//! field set, and each element of a list with the list's. Going through
//! `serde_json::Value` instead built every field of every row first: a web
//! run's 2,400 flow rows of some sixty numbers cost more than the JSON text
//! of the whole results.

use super::result_fields::FieldSet;
use serde::ser::{
    Impossible, Serialize, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant,
    SerializeTuple, SerializeTupleStruct, SerializeTupleVariant, Serializer,
};

/// `value` as it serializes, with only the parts `fields` names.
pub struct Picked<'a, T: ?Sized> {
    pub value: &'a T,
    pub fields: &'a FieldSet,
}

impl<T: Serialize + ?Sized> Serialize for Picked<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.fields.is_whole() {
            self.value.serialize(s)
        } else {
            self.value.serialize(Picking {
                inner: s,
                fields: self.fields,
            })
        }
    }
}

fn picked<'a, T: ?Sized>(value: &'a T, fields: &'a FieldSet) -> Picked<'a, T> {
    Picked { value, fields }
}

/// The serializer under `Picked`: scalars pass as they are; structs and
/// maps keep the named fields; lists, options and newtypes pass the field
/// set on to what they hold; an enum variant with data (JSON
/// `{"Variant": data}`) passes on the variant's part of it (an unnamed
/// variant keeps its name and none of its data).
struct Picking<'a, S> {
    inner: S,
    fields: &'a FieldSet,
}

/// A list's, tuple's or struct's or map's serializer, filtering what goes
/// through it by `fields`.
struct Pick<'a, C> {
    inner: C,
    fields: &'a FieldSet,
    /// A map entry's part of the field set, between its key and its value
    /// (None: the entry is left out).
    entry: Option<&'a FieldSet>,
}

impl<'a, C> Pick<'a, C> {
    fn new(inner: C, fields: &'a FieldSet) -> Pick<'a, C> {
        Pick {
            inner,
            fields,
            entry: None,
        }
    }
}

macro_rules! pass_scalar {
    ($($method:ident($t:ty)),* $(,)?) => {
        $(fn $method(self, v: $t) -> Result<S::Ok, S::Error> {
            self.inner.$method(v)
        })*
    };
}

impl<'a, S: Serializer> Serializer for Picking<'a, S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Pick<'a, S::SerializeSeq>;
    type SerializeTuple = Pick<'a, S::SerializeTuple>;
    type SerializeTupleStruct = Pick<'a, S::SerializeTupleStruct>;
    type SerializeTupleVariant = Pick<'a, S::SerializeTupleVariant>;
    type SerializeMap = Pick<'a, S::SerializeMap>;
    type SerializeStruct = Pick<'a, S::SerializeStruct>;
    type SerializeStructVariant = Pick<'a, S::SerializeStructVariant>;

    pass_scalar!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_i128(i128),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_u128(u128),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_unit_struct(&'static str),
    );

    fn serialize_none(self) -> Result<S::Ok, S::Error> {
        self.inner.serialize_none()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<S::Ok, S::Error> {
        self.inner.serialize_some(&picked(v, self.fields))
    }
    fn serialize_unit(self) -> Result<S::Ok, S::Error> {
        self.inner.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<S::Ok, S::Error> {
        self.inner.serialize_unit_variant(name, index, variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<S::Ok, S::Error> {
        self.inner
            .serialize_newtype_struct(name, &picked(v, self.fields))
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<S::Ok, S::Error> {
        let fields = self.fields.variant(variant);
        self.inner
            .serialize_newtype_variant(name, index, variant, &picked(v, fields))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        Ok(Pick::new(self.inner.serialize_seq(len)?, self.fields))
    }
    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        Ok(Pick::new(self.inner.serialize_tuple(len)?, self.fields))
    }
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        Ok(Pick::new(
            self.inner.serialize_tuple_struct(name, len)?,
            self.fields,
        ))
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        let inner = self
            .inner
            .serialize_tuple_variant(name, index, variant, len)?;
        Ok(Pick::new(inner, self.fields.variant(variant)))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        // How many entries are kept is known only at the end.
        Ok(Pick::new(self.inner.serialize_map(None)?, self.fields))
    }
    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        // The count is a hint (serde_json: 0 closes the object at once, and
        // a struct of no fields keeps none).
        Ok(Pick::new(
            self.inner.serialize_struct(name, len)?,
            self.fields,
        ))
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        let inner = self
            .inner
            .serialize_struct_variant(name, index, variant, len)?;
        Ok(Pick::new(inner, self.fields.variant(variant)))
    }
    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// Each element of a list (or tuple) keeps the list's fields.
macro_rules! pick_elements {
    ($($trait_:ident :: $method:ident),* $(,)?) => {
        $(impl<C: $trait_> $trait_ for Pick<'_, C> {
            type Ok = C::Ok;
            type Error = C::Error;
            fn $method<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), C::Error> {
                self.inner.$method(&picked(v, self.fields))
            }
            fn end(self) -> Result<C::Ok, C::Error> {
                self.inner.end()
            }
        })*
    };
}

pick_elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field,
);

/// A struct's (or struct variant's) fields: those named, each with its
/// part of the field set.
macro_rules! pick_fields {
    ($($trait_:ident),* $(,)?) => {
        $(impl<C: $trait_> $trait_ for Pick<'_, C> {
            type Ok = C::Ok;
            type Error = C::Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                v: &T,
            ) -> Result<(), C::Error> {
                match self.fields.child(key) {
                    Some(sub) => self.inner.serialize_field(key, &picked(v, sub)),
                    None => Ok(()),
                }
            }
            fn end(self) -> Result<C::Ok, C::Error> {
                self.inner.end()
            }
        })*
    };
}

pick_fields!(SerializeStruct, SerializeStructVariant);

impl<C: SerializeMap> SerializeMap for Pick<'_, C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), C::Error> {
        // A key that is neither a string nor an integer cannot be named by
        // a dotted path.
        self.entry = key
            .serialize(KeyName)
            .ok()
            .and_then(|name| self.fields.child(&name));
        match self.entry {
            Some(_) => self.inner.serialize_key(key),
            None => Ok(()),
        }
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), C::Error> {
        match self.entry.take() {
            Some(sub) => self.inner.serialize_value(&picked(v, sub)),
            None => Ok(()),
        }
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

/// A map key's text: a string key as it is, an integer's digits, anything
/// else refused.
struct KeyName;

/// Why `KeyName` refused a key (it is never shown).
#[derive(Debug)]
struct NotAName;

impl std::fmt::Display for NotAName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a map key that is not a string")
    }
}

impl std::error::Error for NotAName {}

impl serde::ser::Error for NotAName {
    fn custom<T: std::fmt::Display>(_: T) -> NotAName {
        NotAName
    }
}

/// An integer key is named by its digits, as serde_json writes it.
macro_rules! name_integer {
    ($($method:ident($t:ty)),* $(,)?) => {
        $(fn $method(self, v: $t) -> Result<String, NotAName> {
            Ok(v.to_string())
        })*
    };
}

macro_rules! refuse {
    ($($method:ident($($arg:ty),*)),* $(,)?) => {
        $(fn $method(self, $(_: $arg),*) -> Result<String, NotAName> {
            Err(NotAName)
        })*
    };
}

impl Serializer for KeyName {
    type Ok = String;
    type Error = NotAName;
    type SerializeSeq = Impossible<String, NotAName>;
    type SerializeTuple = Impossible<String, NotAName>;
    type SerializeTupleStruct = Impossible<String, NotAName>;
    type SerializeTupleVariant = Impossible<String, NotAName>;
    type SerializeMap = Impossible<String, NotAName>;
    type SerializeStruct = Impossible<String, NotAName>;
    type SerializeStructVariant = Impossible<String, NotAName>;

    fn serialize_str(self, v: &str) -> Result<String, NotAName> {
        Ok(v.to_string())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<String, NotAName> {
        Ok(variant.to_string())
    }
    name_integer!(
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
    );
    refuse!(
        serialize_bool(bool),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
    );
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<String, NotAName> {
        Err(NotAName)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<String, NotAName> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<String, NotAName> {
        Err(NotAName)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, NotAName> {
        Err(NotAName)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotAName> {
        Err(NotAName)
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, NotAName> {
        Err(NotAName)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, NotAName> {
        Err(NotAName)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, NotAName> {
        Err(NotAName)
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, NotAName> {
        Err(NotAName)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, NotAName> {
        Err(NotAName)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;
    use std::collections::BTreeMap;

    #[derive(Serialize)]
    struct Counters {
        timeouts: u64,
        undos: u64,
    }

    #[derive(Serialize)]
    enum Kind {
        Bulk,
        Web { pages: u32 },
    }

    #[derive(Serialize)]
    struct Row {
        conn: u32,
        goodput_bps: f64,
        server: Counters,
        delay_s: Option<f64>,
        #[serde(skip_serializing_if = "BTreeMap::is_empty")]
        extra: BTreeMap<String, u64>,
        by_number: BTreeMap<u32, u64>,
        kind: Kind,
    }

    #[derive(Serialize)]
    struct Run {
        name: &'static str,
        events: u64,
        flows: Vec<Row>,
        stall: Option<Counters>,
    }

    fn sample() -> Run {
        let row = |conn, undos, kind| Row {
            conn,
            goodput_bps: 0.1 + conn as f64,
            server: Counters { timeouts: 2, undos },
            delay_s: (conn == 0).then_some(0.25),
            extra: BTreeMap::from([("dupthresh".to_string(), 3), ("rack".to_string(), 1)]),
            by_number: BTreeMap::from([(7, 1)]),
            kind,
        };
        Run {
            name: "x",
            events: 26,
            flows: vec![row(0, 0, Kind::Bulk), row(1, 1, Kind::Web { pages: 4 })],
            stall: Some(Counters {
                timeouts: 1,
                undos: 0,
            }),
        }
    }

    /// The projection as text, and the reference (`FieldSet::project` of
    /// the whole value), both parsed: equal, whatever the key order.
    fn check(paths: &[&str]) -> serde_json::Value {
        let run = sample();
        let f = FieldSet::new(paths);
        let text = serde_json::to_string(&Picked {
            value: &run,
            fields: &f,
        })
        .unwrap();
        let picked: serde_json::Value = serde_json::from_str(&text).unwrap();
        let whole = serde_json::to_value(&run).unwrap();
        assert_eq!(picked, f.project(&whole), "{paths:?}");
        picked
    }

    #[test]
    fn a_struct_keeps_the_named_fields_in_its_own_order() {
        let run = sample();
        let f = FieldSet::new(&["events", "name"]);
        let text = serde_json::to_string(&Picked {
            value: &run,
            fields: &f,
        })
        .unwrap();
        assert_eq!(text, r#"{"name":"x","events":26}"#);
    }

    #[test]
    fn each_element_of_a_list_keeps_the_lists_fields() {
        let v = check(&["flows.goodput_bps", "flows.server.undos"]);
        assert_eq!(v["flows"][1]["goodput_bps"], 1.1);
        assert_eq!(v["flows"][1]["server"], serde_json::json!({"undos": 1}));
    }

    #[test]
    fn an_option_passes_the_fields_to_what_it_holds() {
        let v = check(&["stall.timeouts", "flows.delay_s"]);
        assert_eq!(v["stall"], serde_json::json!({"timeouts": 1}));
        assert!(v["flows"][1]["delay_s"].is_null());
    }

    #[test]
    fn a_map_keeps_the_named_entries_string_or_integer_keys() {
        let v = check(&["flows.extra.rack", "flows.by_number.7"]);
        assert_eq!(v["flows"][0]["extra"], serde_json::json!({"rack": 1}));
        assert_eq!(v["flows"][0]["by_number"], serde_json::json!({"7": 1}));
        let v = check(&["flows.by_number.8"]);
        assert_eq!(v["flows"][0]["by_number"], serde_json::json!({}));
    }

    #[test]
    fn a_path_ending_at_a_value_keeps_it_whole_and_wins_over_deeper_ones() {
        let v = check(&["flows.server", "flows.server.undos", "flows.kind"]);
        assert_eq!(
            v["flows"][0]["server"],
            serde_json::json!({"timeouts": 2, "undos": 0})
        );
        assert_eq!(
            v["flows"][1]["kind"],
            serde_json::json!({"Web": {"pages": 4}})
        );
        let v = check(&["flows.kind.Web.pages"]);
        assert_eq!(
            v["flows"][1]["kind"],
            serde_json::json!({"Web": {"pages": 4}})
        );
    }

    #[test]
    fn unknown_names_are_left_out_and_no_fields_give_an_empty_object() {
        assert_eq!(
            check(&["nope", "flows.nope"]),
            serde_json::json!({"flows": [{}, {}]})
        );
        assert_eq!(check(&[]), serde_json::json!({}));
    }
}
