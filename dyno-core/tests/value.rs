//! The value codec: every std type round-trips through the attribute form DESIGN.md gives it,
//! feature types too, and decode errors say where, what was expected and what was found.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Debug;

use aws_sdk_dynamodb::primitives::Blob;
use dyno_core::value::{
    get_attr, put_attr, to_value, AttributeValue, Bytes, EpochSeconds, FromAttribute, Item, Serde,
    ToAttribute,
};
use dyno_core::Error;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

/// Encodes `value`, checks the attribute is `expected`, decodes it back and checks equality.
#[track_caller]
fn round_trip<T: ToAttribute + FromAttribute + PartialEq + Debug>(
    value: T,
    expected: AttributeValue,
) {
    let attr = to_value(&value).expect("encodes");
    assert_eq!(attr, expected, "attribute form of {value:?}");
    let back = T::from_attribute(&attr).expect("decodes");
    assert_eq!(back, value);
}

/// The Display text of a decode of `attr` into `T` at `Order.field`.
#[track_caller]
fn decode_error<T: FromAttribute + Debug>(attr: Option<AttributeValue>) -> String {
    let mut item = Item::new();
    if let Some(a) = attr {
        item.insert("field".to_owned(), a);
    }
    match get_attr::<T>(&item, "Order", "field") {
        Ok(v) => panic!("decoded {v:?}, expected an error"),
        Err(e) => {
            assert!(
                matches!(e, Error::Decode { .. }),
                "not a decode error: {e:?}"
            );
            e.to_string()
        }
    }
}

#[track_caller]
fn encode_error<T: ToAttribute + ?Sized>(value: &T) -> String {
    match value.to_attribute() {
        Ok(v) => panic!("encoded as {v:?}, expected an error"),
        Err(e) => {
            assert!(
                matches!(e, Error::Encode { .. }),
                "not an encode error: {e:?}"
            );
            e.to_string()
        }
    }
}

#[test]
fn strings_are_s_and_keep_every_character() {
    round_trip(String::new(), s(""));
    round_trip("héllo #%\u{1F600}\0".to_owned(), s("héllo #%\u{1F600}\0"));
    assert_eq!(to_value("borrowed").unwrap(), s("borrowed"));
    assert_eq!(to_value(&Box::new("boxed".to_owned())).unwrap(), s("boxed"));
    assert_eq!(
        Box::<String>::from_attribute(&s("b")).unwrap(),
        Box::new("b".to_owned())
    );
}

#[test]
fn bools_are_bool() {
    round_trip(true, AttributeValue::Bool(true));
    round_trip(false, AttributeValue::Bool(false));
}

macro_rules! integer_extremes {
    ($($t:ty),*) => {$(
        round_trip(<$t>::MIN, n(&<$t>::MIN.to_string()));
        round_trip(<$t>::MAX, n(&<$t>::MAX.to_string()));
        round_trip(0 as $t, n("0"));
        round_trip(7 as $t, n("7"));
    )*};
}

#[test]
fn integers_of_every_width_round_trip_at_their_extremes() {
    integer_extremes!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);
    round_trip(-1i8, n("-1"));
    round_trip(i64::MIN, n("-9223372036854775808"));
    round_trip(u64::MAX, n("18446744073709551615"));
    // 128-bit integers: whatever fits DynamoDB's 38 significant digits.
    round_trip(0u128, n("0"));
    round_trip(
        10u128.pow(38) - 1,
        n("99999999999999999999999999999999999999"),
    );
    round_trip(10u128.pow(38), n("100000000000000000000000000000000000000"));
    round_trip(
        -(10i128.pow(38) - 1),
        n("-99999999999999999999999999999999999999"),
    );
}

#[test]
fn integers_beyond_dynamodb_precision_are_refused_on_encode() {
    let msg = encode_error(&u128::MAX);
    assert!(msg.contains("39 significant digits"), "{msg}");
    assert!(msg.contains("at most 38"), "{msg}");
    encode_error(&i128::MIN);
}

#[test]
fn integers_out_of_range_or_not_integral_are_decode_errors() {
    let msg = decode_error::<u8>(Some(n("256")));
    assert_eq!(
        msg,
        "cannot decode Order.field: expected N fitting u8, found N 256"
    );
    let msg = decode_error::<u32>(Some(n("-1")));
    assert!(msg.contains("expected N fitting u32, found N -1"), "{msg}");
    decode_error::<i64>(Some(n("1.5")));
    decode_error::<i64>(Some(n("9223372036854775808")));
}

#[test]
fn floats_round_trip_exactly() {
    round_trip(1.5f64, n("1.5"));
    round_trip(-0.1f64, n("-0.1"));
    round_trip(0.1f64 + 0.2f64, n("0.30000000000000004"));
    round_trip(1.0e125f64, n(&1.0e125f64.to_string()));
    round_trip(1.0e-130f64, n(&1.0e-130f64.to_string()));
    round_trip(0.0f64, n("0"));
    round_trip(f32::MAX, n(&f32::MAX.to_string()));
    round_trip(f32::MIN_POSITIVE, n(&f32::MIN_POSITIVE.to_string()));
    round_trip(0.1f32, n("0.1"));
    // Other clients write exponents; they decode too.
    assert_eq!(f64::from_attribute(&n("1.5E+3")).unwrap(), 1500.0);
}

#[test]
fn nan_and_infinities_are_refused_with_a_clear_error() {
    for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let msg = encode_error(&v);
        assert!(msg.contains("must be finite"), "{msg}");
    }
    for v in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        encode_error(&v);
    }
    // Through put_attr the error names the entity and attribute.
    let err = put_attr(&mut Item::new(), "Product", "price", &f64::NAN).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot encode Product.price: DynamoDB numbers must be finite, found NaN"
    );
}

#[test]
fn floats_outside_dynamodb_range_are_refused() {
    let msg = encode_error(&1.0e126f64);
    assert!(msg.contains("outside DynamoDB's number range"), "{msg}");
    encode_error(&f64::MAX);
    encode_error(&-f64::MAX);
    encode_error(&1.0e-131f64);
    encode_error(&f64::MIN_POSITIVE);
}

#[test]
fn floats_that_do_not_fit_are_decode_errors() {
    let msg = decode_error::<f32>(Some(n("1e39")));
    assert!(
        msg.contains("expected N fitting f32, found N 1e39"),
        "{msg}"
    );
    decode_error::<f64>(Some(n("1e400")));
    decode_error::<f64>(Some(n("NaN")));
    decode_error::<f64>(Some(n("inf")));
    decode_error::<f64>(Some(s("1.5")));
}

#[test]
fn bytes_are_b_and_byte_vectors_are_lists() {
    round_trip(
        Bytes(vec![0, 1, 255]),
        AttributeValue::B(Blob::new(vec![0, 1, 255])),
    );
    round_trip(Bytes(Vec::new()), AttributeValue::B(Blob::new(Vec::new())));
    round_trip(
        Blob::new(vec![9u8]),
        AttributeValue::B(Blob::new(vec![9u8])),
    );
    // A plain Vec<u8> is a list like any Vec; Bytes is the binary form.
    round_trip(vec![1u8, 2], AttributeValue::L(vec![n("1"), n("2")]));
    let msg = decode_error::<Bytes>(Some(s("AAEC")));
    assert!(
        msg.contains("expected B (binary), found S \"AAEC\""),
        "{msg}"
    );
}

#[test]
fn vectors_are_lists_and_none_inside_them_is_null() {
    round_trip(
        vec!["a".to_owned(), "b".to_owned()],
        AttributeValue::L(vec![s("a"), s("b")]),
    );
    round_trip(Vec::<i32>::new(), AttributeValue::L(vec![]));
    round_trip(
        vec![Some(1i32), None, Some(3)],
        AttributeValue::L(vec![n("1"), AttributeValue::Null(true), n("3")]),
    );
    round_trip(
        vec![vec![true], vec![]],
        AttributeValue::L(vec![
            AttributeValue::L(vec![AttributeValue::Bool(true)]),
            AttributeValue::L(vec![]),
        ]),
    );
}

#[test]
fn sets_are_ss_ns_bs() {
    let strings: HashSet<String> = ["x".to_owned(), "y".to_owned()].into();
    let attr = to_value(&strings).unwrap();
    let AttributeValue::Ss(mut v) = attr.clone() else {
        panic!("not SS: {attr:?}")
    };
    v.sort();
    assert_eq!(v, ["x", "y"]);
    assert_eq!(HashSet::<String>::from_attribute(&attr).unwrap(), strings);

    let numbers: BTreeSet<i64> = [-5, 0, 7].into();
    round_trip(
        numbers,
        AttributeValue::Ns(vec!["-5".into(), "0".into(), "7".into()]),
    );
    let unsigned: BTreeSet<u8> = [1, 255].into();
    round_trip(unsigned, AttributeValue::Ns(vec!["1".into(), "255".into()]));

    let binaries: BTreeSet<Bytes> = [Bytes(vec![1]), Bytes(vec![2, 3])].into();
    round_trip(
        binaries,
        AttributeValue::Bs(vec![Blob::new(vec![1]), Blob::new(vec![2, 3])]),
    );
    let hashed: HashSet<u32> = [4].into();
    round_trip(hashed, AttributeValue::Ns(vec!["4".into()]));

    let msg = decode_error::<BTreeSet<String>>(Some(AttributeValue::L(vec![])));
    assert!(msg.contains("expected SS (string set), found L"), "{msg}");
    let msg = decode_error::<BTreeSet<u8>>(Some(AttributeValue::Ns(vec!["300".into()])));
    assert!(msg.contains("expected N fitting u8, found N 300"), "{msg}");
}

#[test]
fn empty_sets_are_absent_and_absent_sets_are_empty() {
    assert_eq!(HashSet::<String>::new().to_attribute().unwrap(), None);
    assert_eq!(BTreeSet::<i64>::new().to_attribute().unwrap(), None);
    assert_eq!(BTreeSet::<Bytes>::new().to_attribute().unwrap(), None);
    let mut item = Item::new();
    put_attr(&mut item, "User", "tags", &BTreeSet::<String>::new()).unwrap();
    assert!(
        item.is_empty(),
        "an empty set must not be written: {item:?}"
    );
    assert!(get_attr::<HashSet<String>>(&item, "User", "tags")
        .unwrap()
        .is_empty());
    assert!(get_attr::<BTreeSet<u64>>(&item, "User", "tags")
        .unwrap()
        .is_empty());
    // Every collection reads an absent attribute as empty.
    assert!(get_attr::<Vec<String>>(&item, "User", "tags")
        .unwrap()
        .is_empty());
    assert!(get_attr::<HashMap<String, i32>>(&item, "User", "tags")
        .unwrap()
        .is_empty());
    assert!(get_attr::<BTreeMap<String, i32>>(&item, "User", "tags")
        .unwrap()
        .is_empty());
}

#[test]
fn maps_are_m() {
    let map: HashMap<String, u32> = [("a".to_owned(), 1), ("b.c#d".to_owned(), 2)].into();
    round_trip(
        map,
        AttributeValue::M([("a".to_owned(), n("1")), ("b.c#d".to_owned(), n("2"))].into()),
    );
    let tree: BTreeMap<String, bool> = [("x".to_owned(), true)].into();
    round_trip(
        tree,
        AttributeValue::M([("x".to_owned(), AttributeValue::Bool(true))].into()),
    );
    round_trip(
        HashMap::<String, String>::new(),
        AttributeValue::M(HashMap::new()),
    );
    // A None value in a map is kept as NULL and reads back as None: an entry never vanishes.
    let sparse: BTreeMap<String, Option<i32>> =
        [("a".to_owned(), Some(1)), ("b".to_owned(), None)].into();
    let attr = to_value(&sparse).unwrap();
    assert_eq!(
        attr,
        AttributeValue::M(
            [
                ("a".to_owned(), n("1")),
                ("b".to_owned(), AttributeValue::Null(true))
            ]
            .into()
        )
    );
    let back = BTreeMap::<String, Option<i32>>::from_attribute(&attr).unwrap();
    assert_eq!(back, sparse);
}

#[test]
fn option_is_an_absent_attribute_and_null_reads_as_none() {
    assert_eq!(None::<String>.to_attribute().unwrap(), None);
    assert_eq!(Some(5u8).to_attribute().unwrap(), Some(n("5")));
    let mut item = Item::new();
    put_attr(&mut item, "User", "nickname", &None::<String>).unwrap();
    assert!(
        item.is_empty(),
        "None must leave the attribute out, not write NULL: {item:?}"
    );
    assert_eq!(
        get_attr::<Option<String>>(&item, "User", "nickname").unwrap(),
        None
    );
    put_attr(&mut item, "User", "nickname", &Some("bob".to_owned())).unwrap();
    assert_eq!(item["nickname"], s("bob"));
    assert_eq!(
        get_attr::<Option<String>>(&item, "User", "nickname")
            .unwrap()
            .as_deref(),
        Some("bob")
    );
    // Other clients write NULL for "no value".
    assert_eq!(
        Option::<u32>::from_attribute(&AttributeValue::Null(true)).unwrap(),
        None
    );
    // to_value needs a present attribute.
    let err = to_value(&None::<u32>).unwrap_err();
    assert!(matches!(err, Error::Encode { .. }), "{err:?}");
    // A wrong type inside an Option is still an error.
    let msg = decode_error::<Option<u32>>(Some(s("x")));
    assert!(msg.contains("expected N (u32), found S \"x\""), "{msg}");
}

#[test]
fn nested_containers_round_trip() {
    type Deep = Vec<HashMap<String, Vec<Option<BTreeSet<String>>>>>;
    let set: BTreeSet<String> = ["p".to_owned(), "q".to_owned()].into();
    let value: Deep = vec![
        HashMap::from([("k".to_owned(), vec![Some(set.clone()), None])]),
        HashMap::new(),
    ];
    let attr = to_value(&value).unwrap();
    let expected = AttributeValue::L(vec![
        AttributeValue::M(HashMap::from([(
            "k".to_owned(),
            AttributeValue::L(vec![
                AttributeValue::Ss(vec!["p".into(), "q".into()]),
                AttributeValue::Null(true),
            ]),
        )])),
        AttributeValue::M(HashMap::new()),
    ]);
    assert_eq!(attr, expected);
    assert_eq!(Deep::from_attribute(&attr).unwrap(), value);
}

#[test]
fn attribute_values_pass_through() {
    let v = AttributeValue::M(HashMap::from([(
        "a".to_owned(),
        AttributeValue::Null(true),
    )]));
    round_trip(v.clone(), v);
}

#[test]
fn epoch_seconds_are_numbers() {
    round_trip(EpochSeconds(1_700_000_000u64), n("1700000000"));
    round_trip(EpochSeconds(-5i64), n("-5"));
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(86_400);
    round_trip(EpochSeconds(t), n("86400"));
    // Sub-second parts round towards the past, also before the epoch.
    let before = std::time::UNIX_EPOCH - std::time::Duration::from_millis(1500);
    assert_eq!(to_value(&EpochSeconds(before)).unwrap(), n("-2"));
    let msg = decode_error::<EpochSeconds<u64>>(Some(n("-1")));
    assert!(msg.contains("found N -1"), "{msg}");
    let msg = decode_error::<EpochSeconds<i64>>(Some(n("1.5")));
    assert!(
        msg.contains("expected N of whole epoch seconds, found N 1.5"),
        "{msg}"
    );
    let msg = decode_error::<EpochSeconds<i64>>(Some(s("2024-01-01")));
    assert!(msg.contains("found S \"2024-01-01\""), "{msg}");
    // An optional TTL is absent when None.
    assert_eq!(None::<EpochSeconds<u64>>.to_attribute().unwrap(), None);
    let err = to_value(&EpochSeconds(u64::MAX)).unwrap_err();
    assert!(matches!(err, Error::Encode { .. }), "{err:?}");
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct Address {
    street: String,
    zip: Option<u32>,
    lines: Vec<String>,
    geo: Geo,
    tags: BTreeMap<String, Vec<i64>>,
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct Geo {
    lat: f64,
    lon: f64,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
enum Kind {
    Home,
    Work { floor: u8 },
}

#[test]
fn serde_fields_go_through_serde_dynamo() {
    let address = Address {
        street: "1 Main St".into(),
        zip: None,
        lines: vec!["Apt 2".into()],
        geo: Geo {
            lat: 52.5,
            lon: -13.25,
        },
        tags: BTreeMap::from([("a".to_owned(), vec![1, -2])]),
        kind: Kind::Work { floor: 3 },
    };
    let attr = to_value(&Serde(address.clone())).unwrap();
    let AttributeValue::M(m) = &attr else {
        panic!("not a map: {attr:?}")
    };
    assert_eq!(m["street"], s("1 Main St"));
    assert_eq!(m["lines"], AttributeValue::L(vec![s("Apt 2")]));
    let AttributeValue::M(geo) = &m["geo"] else {
        panic!("geo not a map: {m:?}")
    };
    assert_eq!(geo["lat"], n("52.5"));
    assert_eq!(Serde::<Address>::from_attribute(&attr).unwrap().0, address);

    let home = Address {
        kind: Kind::Home,
        zip: Some(10115),
        ..address
    };
    let attr = to_value(&Serde(home.clone())).unwrap();
    assert_eq!(Serde::<Address>::from_attribute(&attr).unwrap().0, home);

    // A serde Option field is absent when None (not NULL), and absent reads back as None.
    let mut item = Item::new();
    put_attr(&mut item, "User", "geo", &Serde(None::<Geo>)).unwrap();
    assert!(
        item.is_empty(),
        "None through serde must leave the attribute out: {item:?}"
    );
    let geo = Geo { lat: 1.0, lon: 2.0 };
    put_attr(&mut item, "User", "geo", &Serde(Some(geo.clone()))).unwrap();
    assert_eq!(
        get_attr::<Serde<Option<Geo>>>(&item, "User", "geo")
            .unwrap()
            .0,
        Some(geo)
    );
    let item = Item::new();
    assert_eq!(
        get_attr::<Serde<Option<Geo>>>(&item, "User", "geo")
            .unwrap()
            .0,
        None
    );
    let err = get_attr::<Serde<Geo>>(&item, "User", "geo").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("cannot decode User.geo: expected "),
        "{err}"
    );
    assert!(
        err.to_string().ends_with("Geo, found no attribute"),
        "{err}"
    );

    // A wrong shape names the type and what was found, and keeps serde_dynamo's error as source.
    let err = Serde::<Geo>::from_attribute(&s("here"))
        .unwrap_err()
        .at("User", "geo");
    let msg = err.to_string();
    assert!(
        msg.starts_with("cannot decode User.geo: expected "),
        "{msg}"
    );
    assert!(msg.ends_with("Geo, found S \"here\""), "{msg}");
    assert!(
        std::error::Error::source(&err).is_some(),
        "serde_dynamo's error kept as source"
    );
}

#[test]
fn decode_errors_name_entity_attribute_expected_and_found() {
    let mut item = Item::new();
    item.insert("total".to_owned(), s("12.50"));
    item.insert("active".to_owned(), n("1"));
    item.insert(
        "items".to_owned(),
        AttributeValue::L(vec![n("1"), s("two")]),
    );
    item.insert(
        "counts".to_owned(),
        AttributeValue::M(HashMap::from([(
            "a".to_owned(),
            AttributeValue::L(vec![n("1"), AttributeValue::Bool(false)]),
        )])),
    );

    let err = get_attr::<u64>(&item, "Order", "total").unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot decode Order.total: expected N (u64), found S \"12.50\""
    );
    let Error::Decode {
        entity,
        attribute,
        expected,
        found,
        ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(*entity, Some("Order"));
    assert_eq!(attribute.as_deref(), Some("total"));
    assert_eq!(expected, "N (u64)");
    assert_eq!(found, "S \"12.50\"");

    let err = get_attr::<bool>(&item, "Order", "active").unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot decode Order.active: expected BOOL, found N 1"
    );

    let err = get_attr::<String>(&item, "Order", "missing").unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot decode Order.missing: expected S (string), found no attribute"
    );
    let err = get_attr::<u32>(&item, "Order", "missing").unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot decode Order.missing: expected N (u32), found no attribute"
    );

    let err = get_attr::<Vec<u32>>(&item, "Order", "items").unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot decode Order.items: expected [1] to be N (u32), found S \"two\""
    );
    let err = get_attr::<HashMap<String, Vec<u32>>>(&item, "Order", "counts").unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot decode Order.counts: expected [\"a\"][1] to be N (u32), found BOOL false"
    );
    let err = get_attr::<HashMap<String, u32>>(&item, "Order", "items").unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot decode Order.items: expected M (map), found L"
    );

    // Long strings are cut in the message.
    item.insert("note".to_owned(), s(&"x".repeat(100)));
    let msg = get_attr::<u8>(&item, "Order", "note")
        .unwrap_err()
        .to_string();
    assert!(
        msg.ends_with(&format!("found S \"{}…\"", "x".repeat(40))),
        "{msg}"
    );
}

#[test]
fn encode_errors_inside_containers_name_the_element() {
    let err = put_attr(&mut Item::new(), "Order", "prices", &vec![1.0, f64::NAN]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot encode Order.prices: [1]: DynamoDB numbers must be finite, found NaN"
    );
    let map = BTreeMap::from([("k".to_owned(), vec![f32::INFINITY])]);
    let err = put_attr(&mut Item::new(), "Order", "m", &map).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot encode Order.m: [\"k\"][0]: DynamoDB numbers must be finite, found inf"
    );
}

#[cfg(feature = "uuid")]
mod uuid_values {
    use super::*;
    use uuid::Uuid;

    #[test]
    fn uuids_are_hyphenated_lowercase_strings() {
        let id = Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef);
        round_trip(id, s("01234567-89ab-cdef-0123-456789abcdef"));
        // Other spellings written by other clients decode.
        assert_eq!(
            Uuid::from_attribute(&s("01234567-89AB-CDEF-0123-456789ABCDEF")).unwrap(),
            id
        );
        assert_eq!(
            Uuid::from_attribute(&s("0123456789abcdef0123456789abcdef")).unwrap(),
            id
        );
        let set: BTreeSet<Uuid> = [id, Uuid::nil()].into();
        let attr = to_value(&set).unwrap();
        assert!(
            matches!(&attr, AttributeValue::Ss(v) if v.len() == 2),
            "{attr:?}"
        );
        assert_eq!(BTreeSet::<Uuid>::from_attribute(&attr).unwrap(), set);
        let msg = decode_error::<Uuid>(Some(s("not-a-uuid")));
        assert_eq!(
            msg,
            "cannot decode Order.field: expected S holding a UUID, found S \"not-a-uuid\""
        );
        decode_error::<Uuid>(Some(n("1")));
    }
}

#[cfg(feature = "time")]
mod time_values {
    use super::*;
    use time::macros::{date, datetime};
    use time::{Date, OffsetDateTime};

    #[test]
    fn timestamps_are_fixed_width_utc_rfc3339() {
        round_trip(
            datetime!(2024-01-02 03:04:05 UTC),
            s("2024-01-02T03:04:05.000000000Z"),
        );
        round_trip(
            datetime!(2024-01-02 03:04:05.123456789 UTC),
            s("2024-01-02T03:04:05.123456789Z"),
        );
        round_trip(
            datetime!(0000-01-01 00:00 UTC),
            s("0000-01-01T00:00:00.000000000Z"),
        );
        round_trip(
            datetime!(9999-12-31 23:59:59.999999999 UTC),
            s("9999-12-31T23:59:59.999999999Z"),
        );
        // Other offsets are converted to UTC.
        let berlin = datetime!(2024-01-02 04:04:05 +01:00);
        assert_eq!(
            to_value(&berlin).unwrap(),
            s("2024-01-02T03:04:05.000000000Z")
        );
        let back = OffsetDateTime::from_attribute(&to_value(&berlin).unwrap()).unwrap();
        assert_eq!(back, berlin);
        assert_eq!(back.offset(), time::UtcOffset::UTC);
        // Any RFC 3339 written by other clients decodes.
        let other = OffsetDateTime::from_attribute(&s("2024-01-02T05:04:05+02:00")).unwrap();
        assert_eq!(other, datetime!(2024-01-02 03:04:05 UTC));
        let short = OffsetDateTime::from_attribute(&s("2024-01-02T03:04:05.5Z")).unwrap();
        assert_eq!(short, datetime!(2024-01-02 03:04:05.5 UTC));
    }

    #[test]
    fn timestamps_outside_four_digit_years_are_refused() {
        let msg = encode_error(&datetime!(-0001-12-31 23:00 UTC));
        assert!(msg.contains("outside the years 0000-9999"), "{msg}");
        // 0000-01-01T00:30+01:00 is still year -1 in UTC.
        encode_error(&datetime!(0000-01-01 00:30 +01:00));
    }

    #[test]
    fn timestamp_decode_errors_say_what_was_expected() {
        let msg = decode_error::<OffsetDateTime>(Some(s("yesterday")));
        assert_eq!(
            msg,
            "cannot decode Order.field: expected S in RFC 3339 (UTC), found S \"yesterday\""
        );
        let msg = decode_error::<OffsetDateTime>(Some(n("1700000000")));
        assert!(
            msg.ends_with("expected S in RFC 3339 (UTC), found N 1700000000"),
            "{msg}"
        );
        decode_error::<OffsetDateTime>(Some(s("2024-01-02")));
    }

    #[test]
    fn dates_are_yyyy_mm_dd() {
        round_trip(date!(2024 - 02 - 29), s("2024-02-29"));
        round_trip(date!(0000 - 01 - 01), s("0000-01-01"));
        round_trip(date!(9999 - 12 - 31), s("9999-12-31"));
        let msg = decode_error::<Date>(Some(s("2023-02-29")));
        assert_eq!(
            msg,
            "cannot decode Order.field: expected S in YYYY-MM-DD, found S \"2023-02-29\""
        );
        decode_error::<Date>(Some(s("2024-1-2")));
        decode_error::<Date>(Some(s("2024-01-02T00:00:00Z")));
        encode_error(&date!(-0001 - 01 - 01));
    }

    #[test]
    fn timestamps_as_epoch_seconds() {
        let t = datetime!(2024-01-02 03:04:05.9 UTC);
        let attr = to_value(&EpochSeconds(t)).unwrap();
        assert_eq!(attr, n("1704164645"));
        let back = EpochSeconds::<OffsetDateTime>::from_attribute(&attr)
            .unwrap()
            .0;
        assert_eq!(back, datetime!(2024-01-02 03:04:05 UTC));
        assert_eq!(
            dyno_core::value::to_epoch_seconds(&t).unwrap(),
            1_704_164_645
        );
        let from: OffsetDateTime = dyno_core::value::from_epoch_seconds(0).unwrap();
        assert_eq!(from, OffsetDateTime::UNIX_EPOCH);
        let msg = decode_error::<EpochSeconds<OffsetDateTime>>(Some(n(&i64::MAX.to_string())));
        assert!(msg.contains("time::OffsetDateTime's range"), "{msg}");
    }
}

#[cfg(feature = "chrono")]
mod chrono_values {
    use super::*;
    use chrono::{DateTime, NaiveDate, Utc};

    fn utc(y: i32, mo: u32, d: u32, h: u32, mi: u32, sec: u32, nanos: u32) -> DateTime<Utc> {
        NaiveDate::from_ymd_opt(y, mo, d)
            .unwrap()
            .and_hms_nano_opt(h, mi, sec, nanos)
            .unwrap()
            .and_utc()
    }

    #[test]
    fn timestamps_are_fixed_width_utc_rfc3339() {
        round_trip(
            utc(2024, 1, 2, 3, 4, 5, 0),
            s("2024-01-02T03:04:05.000000000Z"),
        );
        round_trip(
            utc(2024, 1, 2, 3, 4, 5, 7),
            s("2024-01-02T03:04:05.000000007Z"),
        );
        round_trip(
            utc(0, 1, 1, 0, 0, 0, 0),
            s("0000-01-01T00:00:00.000000000Z"),
        );
        // A leap second is written as second 60 and reads back as itself.
        round_trip(
            utc(2016, 12, 31, 23, 59, 59, 1_500_000_000),
            s("2016-12-31T23:59:60.500000000Z"),
        );
        let other = DateTime::<Utc>::from_attribute(&s("2024-01-02T05:04:05+02:00")).unwrap();
        assert_eq!(other, utc(2024, 1, 2, 3, 4, 5, 0));
        let msg = encode_error(&utc(10_000, 1, 1, 0, 0, 0, 0));
        assert!(msg.contains("outside the years 0000-9999"), "{msg}");
        encode_error(&utc(-1, 1, 1, 0, 0, 0, 0));
        let msg = decode_error::<DateTime<Utc>>(Some(s("yesterday")));
        assert_eq!(
            msg,
            "cannot decode Order.field: expected S in RFC 3339 (UTC), found S \"yesterday\""
        );
    }

    #[test]
    fn dates_are_yyyy_mm_dd() {
        round_trip(
            NaiveDate::from_ymd_opt(2024, 2, 29).unwrap(),
            s("2024-02-29"),
        );
        round_trip(NaiveDate::from_ymd_opt(1, 1, 1).unwrap(), s("0001-01-01"));
        let msg = decode_error::<NaiveDate>(Some(s("2024-13-01")));
        assert_eq!(
            msg,
            "cannot decode Order.field: expected S in YYYY-MM-DD, found S \"2024-13-01\""
        );
        encode_error(&NaiveDate::from_ymd_opt(12_345, 1, 1).unwrap());
    }

    #[test]
    fn timestamps_as_epoch_seconds() {
        round_trip(EpochSeconds(utc(2024, 1, 2, 3, 4, 5, 0)), n("1704164645"));
        let attr = to_value(&EpochSeconds(utc(1969, 12, 31, 23, 59, 59, 500_000_000))).unwrap();
        assert_eq!(attr, n("-1"));
        let msg = decode_error::<EpochSeconds<DateTime<Utc>>>(Some(n(&i64::MAX.to_string())));
        assert!(msg.contains("chrono::DateTime's range"), "{msg}");
    }
}

#[cfg(feature = "rust_decimal")]
mod decimal_values {
    use super::*;
    use rust_decimal::Decimal;
    use std::str::FromStr;

    fn dec(text: &str) -> Decimal {
        Decimal::from_str(text).unwrap()
    }

    #[test]
    fn decimals_are_exact_normalized_numbers() {
        round_trip(dec("12.5"), n("12.5"));
        round_trip(
            dec("-0.0000000000000000000000000001"),
            n("-0.0000000000000000000000000001"),
        );
        round_trip(Decimal::MAX, n("79228162514264337593543950335"));
        round_trip(Decimal::MIN, n("-79228162514264337593543950335"));
        round_trip(Decimal::ZERO, n("0"));
        // Trailing zeros and negative zero are normalized away.
        assert_eq!(to_value(&dec("1.50")).unwrap(), n("1.5"));
        assert_eq!(to_value(&dec("-0.00")).unwrap(), n("0"));
        assert_eq!(to_value(&dec("100")).unwrap(), n("100"));
        // Exponent forms from other clients decode exactly.
        assert_eq!(Decimal::from_attribute(&n("1.25E+2")).unwrap(), dec("125"));
        assert_eq!(Decimal::from_attribute(&n("5e-3")).unwrap(), dec("0.005"));
        let set: BTreeSet<Decimal> = [dec("1.5"), dec("-2")].into();
        round_trip(set, AttributeValue::Ns(vec!["-2".into(), "1.5".into()]));
    }

    #[test]
    fn decimals_that_do_not_fit_are_decode_errors() {
        let msg = decode_error::<Decimal>(Some(n("0.00000000000000000000000000001")));
        assert!(
            msg.contains("expected N fitting rust_decimal::Decimal"),
            "{msg}"
        );
        assert!(
            msg.ends_with("found N 0.00000000000000000000000000001"),
            "{msg}"
        );
        decode_error::<Decimal>(Some(n("792281625142643375935439503350")));
        let msg = decode_error::<Decimal>(Some(s("1.5")));
        assert!(
            msg.ends_with("expected N (rust_decimal::Decimal), found S \"1.5\""),
            "{msg}"
        );
    }
}
