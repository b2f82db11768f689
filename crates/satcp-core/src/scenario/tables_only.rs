//! A scenario's settings read as `serde_json` reads a `Value`, except that a
//! struct is read from a table only. serde's derived structs also take a
//! list of their fields in order, so `trace = []` ran as the default trace
//! and `trace = [["cwnd"]]` as one with those `kinds`: a form no document
//! names, which the schema (`scenario/schema.rs`) rules out. Here a list
//! where a table belongs is refused as any other wrong type is, in the
//! scenario's words: "trace: invalid type: sequence, expected a table"
//! (`serde_json` said "expected struct TraceSettings" for the other types).
//!
//! Everything else is `serde_json`'s behaviour for a borrowed `Value`,
//! messages included: numbers, strings, lists, maps, options, enums (a
//! string, or a one-key table), and the checks that a list or table was
//! read to its end.

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Unexpected,
    VariantAccess, Visitor,
};
use serde::forward_to_deserialize_any;
use serde_json::{Error, Map, Value};

/// A `Value` to deserialize, its structs from tables only.
pub struct TablesOnly<'a>(pub &'a Value);

impl<'a> Deserializer<'a> for TablesOnly<'a> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else {
                    visitor.visit_f64(n.as_f64().expect("a JSON number is a float"))
                }
            }
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(a) => visit_list(a, visitor),
            Value::Object(m) => visit_table(m, visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'a>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(m) => visit_table(m, visitor),
            // "expected a table", in the scenario's words, not the Rust
            // type's ("expected struct TraceSettings")
            other => Err(de::Error::invalid_type(unexpected(other), &"a table")),
        }
    }

    fn deserialize_option<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_enum<V: Visitor<'a>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let (variant, value) = match self.0 {
            Value::String(s) => (s.as_str(), None),
            Value::Object(m) => {
                let mut entries = m.iter();
                match (entries.next(), entries.next()) {
                    (Some((k, v)), None) => (k.as_str(), Some(v)),
                    _ => {
                        return Err(de::Error::invalid_value(
                            Unexpected::Map,
                            &"map with a single key",
                        ))
                    }
                }
            }
            other => return Err(de::Error::invalid_type(unexpected(other), &"string or map")),
        };
        visitor.visit_enum(Variant { variant, value })
    }

    fn deserialize_newtype_struct<V: Visitor<'a>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_unit<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            other => Err(de::Error::invalid_type(unexpected(other), &visitor)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'a>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_seq<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(a) => visit_list(a, visitor),
            other => Err(de::Error::invalid_type(unexpected(other), &visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'a>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'a>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(m) => visit_table(m, visitor),
            other => Err(de::Error::invalid_type(unexpected(other), &visitor)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        <W: Visitor<'a>>
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf identifier
    }
}

/// How an error names a value of the wrong type.
fn unexpected(v: &Value) -> Unexpected<'_> {
    match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (None, Some(i)) => Unexpected::Signed(i),
            _ => Unexpected::Float(n.as_f64().expect("a JSON number is a float")),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

fn visit_list<'a, V: Visitor<'a>>(list: &'a [Value], visitor: V) -> Result<V::Value, Error> {
    let mut items = Items(list.iter());
    let v = visitor.visit_seq(&mut items)?;
    match items.0.len() {
        0 => Ok(v),
        _ => Err(de::Error::invalid_length(
            list.len(),
            &"fewer elements in array",
        )),
    }
}

fn visit_table<'a, V: Visitor<'a>>(
    table: &'a Map<String, Value>,
    visitor: V,
) -> Result<V::Value, Error> {
    let mut entries = Entries(table.iter(), None);
    let v = visitor.visit_map(&mut entries)?;
    match entries.0.len() {
        0 => Ok(v),
        _ => Err(de::Error::invalid_length(
            table.len(),
            &"fewer elements in map",
        )),
    }
}

struct Items<'a>(std::slice::Iter<'a, Value>);

impl<'a> SeqAccess<'a> for Items<'a> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'a>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.0
            .next()
            .map(|v| seed.deserialize(TablesOnly(v)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// A table's entries, and the value of the key read last.
struct Entries<'a>(serde_json::map::Iter<'a>, Option<&'a Value>);

impl<'a> MapAccess<'a> for Entries<'a> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'a>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((k, v)) = self.0.next() else {
            return Ok(None);
        };
        self.1 = Some(v);
        seed.deserialize(BorrowedStrDeserializer::new(k)).map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'a>>(&mut self, seed: T) -> Result<T::Value, Error> {
        match self.1.take() {
            Some(v) => seed.deserialize(TablesOnly(v)),
            None => Err(de::Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// An enum's variant name and its content (none for a unit variant).
struct Variant<'a> {
    variant: &'a str,
    value: Option<&'a Value>,
}

impl<'a> EnumAccess<'a> for Variant<'a> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'a>>(self, seed: V) -> Result<(V::Value, Self), Error> {
        let name = seed.deserialize(BorrowedStrDeserializer::<Error>::new(self.variant))?;
        Ok((name, self))
    }
}

impl<'a> VariantAccess<'a> for Variant<'a> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.value {
            Some(v) => de::Deserialize::deserialize(TablesOnly(v)),
            None => Ok(()),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'a>>(self, seed: T) -> Result<T::Value, Error> {
        match self.value {
            Some(v) => seed.deserialize(TablesOnly(v)),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"newtype variant",
            )),
        }
    }

    fn tuple_variant<V: Visitor<'a>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Some(Value::Array(a)) if a.is_empty() => visitor.visit_unit(),
            Some(Value::Array(a)) => visit_list(a, visitor),
            Some(other) => Err(de::Error::invalid_type(unexpected(other), &"tuple variant")),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"tuple variant",
            )),
        }
    }

    fn struct_variant<V: Visitor<'a>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            Some(Value::Object(m)) => visit_table(m, visitor),
            Some(other) => Err(de::Error::invalid_type(
                unexpected(other),
                &"struct variant",
            )),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"struct variant",
            )),
        }
    }
}

/// Deserializes a settings value, its structs from tables only, with the
/// path of a failing field.
pub fn deserialize<T: de::DeserializeOwned>(
    v: &Value,
) -> Result<T, serde_path_to_error::Error<Error>> {
    serde_path_to_error::deserialize(TablesOnly(v))
}

#[cfg(test)]
mod tests {
    use super::deserialize;
    use proptest::prelude::*;
    use serde::Deserialize;
    use serde_json::{json, Value};

    #[derive(Debug, Default, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        #[serde(default)]
        k: u32,
        #[serde(default)]
        on: bool,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Kind {
        Red,
        Tail { n: u32 },
        Pair(u32, f64),
        Wrap(Inner),
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(untagged)]
    enum Either {
        Number(u32),
        Name(String),
    }

    #[derive(Debug, Default, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        #[serde(default)]
        rate: f64,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        schedule: Option<Vec<[f64; 2]>>,
        #[serde(default)]
        inner: Inner,
        #[serde(default)]
        maybe: Option<Inner>,
        #[serde(default)]
        kinds: Vec<Kind>,
        #[serde(default)]
        k: Option<Either>,
        #[serde(default)]
        pairs: Vec<(u8, i64)>,
    }

    /// serde_json's own reading of `v`, as `deserialize` reports it: a
    /// struct expected is "a table".
    fn serde_json_reads(v: &Value) -> Result<Outer, String> {
        serde_path_to_error::deserialize(v).map_err(|e| {
            let message = format!("{}: {}", e.path(), e.inner());
            match message.split_once("expected struct ") {
                Some((head, name)) if name != "variant" => format!("{head}expected a table"),
                _ => message,
            }
        })
    }

    fn ours(v: &Value) -> Result<Outer, String> {
        deserialize(v).map_err(|e| format!("{}: {}", e.path(), e.inner()))
    }

    #[test]
    fn a_struct_is_refused_from_a_list() {
        for (v, path) in [
            (json!([]), "."),
            (json!([1.0, "x"]), "."),
            (json!({"inner": []}), "inner"),
            (json!({"inner": [3, true]}), "inner"),
            (json!({"maybe": [3]}), "maybe"),
            (json!({"kinds": [{"wrap": [3]}]}), "kinds[0].wrap"),
        ] {
            assert!(
                serde_json_reads(&v).is_ok(),
                "serde_json reads {v} from a list"
            );
            let e = ours(&v).unwrap_err();
            assert_eq!(
                e,
                format!("{path}: invalid type: sequence, expected a table")
            );
        }
    }

    #[test]
    fn everything_else_reads_as_serde_json_reads_it() {
        let documents = [
            json!({}),
            json!({"rate": 2e6, "name": "x", "schedule": [[0, 1.5], [2, 3]]}),
            json!({"rate": 3, "inner": {"k": 4}, "maybe": {"on": true}}),
            json!({"kinds": ["red", {"tail": {"n": 2}}, {"pair": [1, 2]}, {"wrap": {"k": 1}}]}),
            json!({"k": 3, "pairs": [[1, -2]]}),
            json!({"k": "cwnd"}),
            json!({"rate": "fast"}),
            json!({"rate": null}),
            json!({"inner": {"k": -1}}),
            json!({"inner": {"k": 1.5}}),
            json!({"inner": {"k": 4294967296u64}}),
            json!({"inner": {"z": 1}}),
            json!({"inner": 3}),
            json!({"inner": null}),
            json!({"schedule": [[1, 2, 3]]}),
            json!({"schedule": [[1]]}),
            json!({"schedule": {"a": 1}}),
            json!({"kinds": ["blue"]}),
            json!({"kinds": [{"red": null}]}),
            json!({"kinds": [{"red": 1}]}),
            json!({"kinds": [{"tail": 1}]}),
            json!({"kinds": [{"tail": [3]}]}),
            json!({"kinds": [{"tail": {"n": 1}, "red": null}]}),
            json!({"kinds": [{}]}),
            json!({"kinds": [3]}),
            json!({"kinds": ["tail"]}),
            json!({"kinds": ["pair"]}),
            json!({"kinds": ["wrap"]}),
            json!({"kinds": [{"pair": 1}]}),
            json!({"kinds": [{"pair": []}]}),
            json!({"kinds": [{"pair": [1, 2, 3]}]}),
            json!({"k": true}),
            json!({"k": [1]}),
            json!({"pairs": [[300, 1]]}),
            json!({"pairs": [[1, 1e30]]}),
            json!({"name": 1}),
            json!({"name": ["x"]}),
            json!(3),
            json!("x"),
            json!(null),
        ];
        for v in &documents {
            assert_eq!(ours(v), serde_json_reads(v), "{v}");
        }
    }

    fn any_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<u32>().prop_map(|n| json!(n)),
            any::<i64>().prop_map(|n| json!(n)),
            (-1e6f64..1e6).prop_map(|x| json!(x)),
            prop_oneof![
                Just("red"),
                Just("tail"),
                Just("pair"),
                Just("wrap"),
                Just("n"),
                Just("k"),
                Just("x")
            ]
            .prop_map(|s| json!(s)),
        ];
        let keys = prop_oneof![
            Just("rate"),
            Just("name"),
            Just("schedule"),
            Just("inner"),
            Just("maybe"),
            Just("kinds"),
            Just("k"),
            Just("on"),
            Just("n"),
            Just("pairs"),
            Just("red"),
            Just("tail"),
            Just("pair"),
            Just("wrap"),
        ];
        leaf.prop_recursive(4, 32, 4, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((keys.clone(), inner), 0..4).prop_map(|kv| {
                    Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
                }),
            ]
        })
    }

    /// Whether `v` gives a list where `Outer` reads a struct: the one
    /// place the two readings differ (checked above).
    fn struct_from_a_list(v: &Value) -> bool {
        let Value::Object(m) = v else {
            return matches!(v, Value::Array(_));
        };
        let list = |v: Option<&Value>| matches!(v, Some(Value::Array(_)));
        let variant_list = |k: &Value| match k {
            Value::Object(e) => list(e.get("wrap")),
            _ => false,
        };
        list(m.get("inner"))
            || list(m.get("maybe"))
            || match m.get("kinds") {
                Some(Value::Array(ks)) => ks.iter().any(variant_list),
                _ => false,
            }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]
        #[test]
        fn random_values_read_as_serde_json_reads_them(v in any_value()) {
            if struct_from_a_list(&v) {
                prop_assert!(ours(&v).is_err());
            } else {
                prop_assert_eq!(ours(&v), serde_json_reads(&v), "{}", v);
            }
        }
    }
}
