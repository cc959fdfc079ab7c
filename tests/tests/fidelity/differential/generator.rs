//! The seeded generator of request sequences.
//!
//! Every request names logical tables (`main`, `num`, `bin`); the runner maps them to per-run
//! physical tables. Values come from small pools so that requests collide: puts replace each
//! other, conditions see the attributes earlier writes left, queries find items. A few requests in
//! every hundred are invalid on purpose (empty key strings, wrong key types, numbers out of range,
//! duplicate set members, overlapping update paths, conditions on keys), so that errors are
//! compared too.

use dyno_core::expr::{
    AttributeType, Comparator, Condition, KeyCondition, Operand, Path, PathElement, SetValue,
    SortCondition, Update, UpdateOperand,
};
use dyno_core::store::{
    BatchGetRequest, BatchWriteRequest, DeleteRequest, GetRequest, PutRequest, QueryRequest,
    ReturnValues, ScanRequest, TableKey, TransactGetItem, TransactGetRequest, TransactWriteItem,
    TransactWriteRequest, UpdateRequest, WriteRequest,
};
use dyno_core::table::{IndexDef, KeyAttribute, Projection, ScalarType, TableDef};
use dyno_core::{AttributeValue, Item};
use fastrand::Rng;

use aws_sdk_dynamodb::primitives::Blob;

/// One step of a sequence. Query and scan steps page to the end (each page is a request), so a
/// step never depends on another step's response and any subsequence replays on its own.
#[derive(Debug, Clone, PartialEq)]
// A generated test step: its size does not matter (a key condition carries multi-attribute parts).
#[allow(clippy::large_enum_variant)]
pub enum Op {
    /// PutItem.
    Put(PutRequest),
    /// UpdateItem.
    Update(UpdateRequest),
    /// DeleteItem.
    Delete(DeleteRequest),
    /// GetItem.
    Get(GetRequest<'static>),
    /// Query, following `LastEvaluatedKey` for at most `max_pages` pages.
    Query {
        /// The first page's request.
        request: QueryRequest,
        /// Pages to read at most.
        max_pages: u32,
    },
    /// Scan of every segment of `request.segment` (or the whole table), each paged to the end.
    Scan(ScanRequest),
    /// BatchGetItem.
    BatchGet(BatchGetRequest),
    /// BatchWriteItem.
    BatchWrite(BatchWriteRequest),
    /// TransactGetItems.
    TransactGet(TransactGetRequest),
    /// TransactWriteItems.
    TransactWrite(TransactWriteRequest),
}

/// The tables every run creates, under their logical names.
pub fn tables() -> Vec<TableDef> {
    let main = TableDef::new("main", "PK", Some("SK"))
        .global_index(IndexDef::new("GSI1", "GSI1PK", Some("GSI1SK")))
        .global_index(IndexDef::new("GSI2", "GSI2PK", None).projection(Projection::KeysOnly))
        .local_index(
            IndexDef::new("LSI1", "PK", Some("LSK"))
                .projection(Projection::Include(vec!["inc".into()])),
        );
    let mut num = TableDef::new("num", "PK", None);
    num.sort_key = Some(KeyAttribute::new("SK", ScalarType::N));
    let num = num.global_index(IndexDef {
        name: "ByScore".into(),
        partition_key: KeyAttribute::string("G"),
        sort_key: Some(KeyAttribute::new("score", ScalarType::N)),
        extra_partition_keys: Vec::new(),
        extra_sort_keys: Vec::new(),
        projection: Projection::Include(vec!["a".into(), "m".into()]),
    });
    let mut bin = TableDef::new("bin", "PK", None);
    bin.partition_key = KeyAttribute::new("PK", ScalarType::B);
    bin.sort_key = Some(KeyAttribute::new("SK", ScalarType::B));
    vec![main, num, bin]
}

const STRINGS: &[&str] = &[
    "x", "xy", "y", "abc", "ab", "a", "é", "Z", "10", "2", "a#1", "a#2", "", " ",
];
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "1.0",
    "1.50",
    "-3.25",
    "10",
    "2",
    "1e2",
    "1E-2",
    "100",
    "0.001",
    "-1000000",
    "12345678901234567890123456789012345678",
    "1.2345678901234567890123456789012345678",
    "9.9999999999999999999999999999999999999E+125",
    "1E-130",
    "-1E-130",
    "0.0000000000000000000000000000000000000000001",
    "00042",
];
/// Numbers DynamoDB rejects: out of range, 39 significant digits, not a number.
const BAD_NUMBERS: &[&str] = &[
    "1E+126",
    "1E-131",
    "123456789012345678901234567890123456789",
    "abc",
    "",
    "1.",
    "+1",
];
const NAMES: &[&str] = &["a", "b", "c", "inc", "n", "m", "l", "ss", "ns", "bs"];
const MAP_KEYS: &[&str] = &["k", "j", "a", "x y"];
const PARTITIONS: &[&str] = &["P0", "P1", "P2"];
const SORTS: &[&str] = &["a", "a#1", "a#2", "ab", "b", "B", "é", "z", "10", "9"];
const GSI_PARTITIONS: &[&str] = &["G0", "G1"];
const NUM_SORTS: &[&str] = &[
    "-10.25", "-1", "0", "0.5", "1", "1.0", "2", "10", "1e2", "100",
];

/// Draws sequences from one seed.
#[derive(Debug)]
pub struct Gen {
    rng: Rng,
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

impl Gen {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Gen {
            rng: Rng::with_seed(seed),
        }
    }

    fn chance(&mut self, percent: u32) -> bool {
        self.rng.u32(0..100) < percent
    }

    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.rng.usize(..xs.len())]
    }

    fn word(&mut self, xs: &[&'static str]) -> &'static str {
        xs[self.rng.usize(..xs.len())]
    }

    /// `len` steps.
    pub fn sequence(&mut self, len: usize) -> Vec<Op> {
        (0..len).map(|_| self.op()).collect()
    }

    /// One step: writes and reads in about equal measure.
    pub fn op(&mut self) -> Op {
        match self.rng.u32(0..100) {
            0..=21 => Op::Put(self.put()),
            22..=39 => Op::Update(self.update()),
            40..=46 => Op::Delete(self.delete()),
            47..=56 => Op::Get(self.get()),
            57..=71 => self.query(),
            72..=77 => Op::Scan(self.scan()),
            78..=83 => Op::BatchGet(self.batch_get()),
            84..=89 => Op::BatchWrite(self.batch_write()),
            90..=93 => Op::TransactGet(self.transact_get()),
            _ => Op::TransactWrite(self.transact_write()),
        }
    }

    fn table(&mut self) -> &'static str {
        match self.rng.u32(0..10) {
            0..=5 => "main",
            6..=8 => "num",
            _ => "bin",
        }
    }

    fn bytes(&mut self) -> Vec<u8> {
        let len = self.rng.usize(0..4);
        (0..len)
            .map(|_| *self.pick(&[0u8, 1, 2, 0x7f, 0x80, 0xff]))
            .collect()
    }

    fn key_string(&mut self, pool: &[&'static str]) -> AttributeValue {
        if self.chance(1) {
            // Empty strings are not allowed in key attributes.
            return s("");
        }
        s(self.word(pool))
    }

    /// A primary key of `table`; now and then of the wrong shape.
    fn key(&mut self, table: &str) -> Item {
        let mut key = match table {
            "main" => Item::from([
                ("PK".into(), self.key_string(PARTITIONS)),
                ("SK".into(), self.key_string(SORTS)),
            ]),
            "num" => Item::from([
                ("PK".into(), self.key_string(PARTITIONS)),
                ("SK".into(), n(self.word(NUM_SORTS))),
            ]),
            _ => {
                let pk = vec![self.rng.u8(0..2)];
                let len = self.rng.usize(1..3);
                let sk: Vec<u8> = (0..len)
                    .map(|_| *self.pick(&[0u8, 1, 0x7f, 0x80, 0xff]))
                    .collect();
                Item::from([
                    ("PK".into(), AttributeValue::B(Blob::new(pk))),
                    ("SK".into(), AttributeValue::B(Blob::new(sk))),
                ])
            }
        };
        match self.rng.u32(0..200) {
            0 => {
                key.remove("SK");
            }
            1 => {
                key.insert("SK".into(), AttributeValue::Bool(true));
            }
            2 => {
                key.insert("extra".into(), s("x"));
            }
            _ => {}
        }
        key
    }

    fn number(&mut self) -> AttributeValue {
        if self.chance(2) {
            return n(self.word(BAD_NUMBERS));
        }
        n(self.word(NUMBERS))
    }

    fn string(&mut self) -> AttributeValue {
        s(self.word(STRINGS))
    }

    fn string_set(&mut self) -> AttributeValue {
        let len = self.rng.usize(1..4);
        let mut v: Vec<String> = (0..len).map(|_| self.word(STRINGS).to_string()).collect();
        if !self.chance(3) {
            v.sort();
            v.dedup();
        }
        if self.chance(1) {
            v.clear();
        }
        AttributeValue::Ss(v)
    }

    fn number_set(&mut self) -> AttributeValue {
        let len = self.rng.usize(1..4);
        let mut v: Vec<String> = (0..len)
            .map(|_| self.word(&NUMBERS[..12]).to_string())
            .collect();
        if !self.chance(3) {
            v.sort();
            v.dedup();
        }
        AttributeValue::Ns(v)
    }

    fn binary_set(&mut self) -> AttributeValue {
        let len = self.rng.usize(1..3);
        let mut v: Vec<Vec<u8>> = (0..len).map(|_| self.bytes()).collect();
        if !self.chance(3) {
            v.sort();
            v.dedup();
        }
        AttributeValue::Bs(v.into_iter().map(Blob::new).collect())
    }

    /// Any attribute value, nested up to `depth` levels of lists and maps.
    fn value(&mut self, depth: u32) -> AttributeValue {
        let kinds = if depth == 0 { 9 } else { 11 };
        match self.rng.u32(0..kinds) {
            0 | 1 => self.string(),
            2 | 3 => self.number(),
            4 => AttributeValue::B(Blob::new(self.bytes())),
            5 => AttributeValue::Bool(self.rng.bool()),
            6 => {
                if self.chance(3) {
                    AttributeValue::Null(false)
                } else {
                    AttributeValue::Null(true)
                }
            }
            7 => match self.rng.u32(0..3) {
                0 => self.string_set(),
                1 => self.number_set(),
                _ => self.binary_set(),
            },
            8 => self.string(),
            9 => {
                let len = self.rng.usize(0..4);
                AttributeValue::L((0..len).map(|_| self.value(depth - 1)).collect())
            }
            _ => {
                let len = self.rng.usize(0..4);
                AttributeValue::M(
                    (0..len)
                        .map(|_| (self.word(MAP_KEYS).to_string(), self.value(depth - 1)))
                        .collect(),
                )
            }
        }
    }

    /// A whole item of `table`: its key, index keys now and then, and up to five attributes.
    fn item(&mut self, table: &str) -> Item {
        let mut item = self.key(table);
        if table == "main" {
            if self.chance(50) {
                item.insert("GSI1PK".into(), self.key_string(GSI_PARTITIONS));
                if self.chance(90) {
                    let v = if self.chance(2) {
                        n("1")
                    } else {
                        self.key_string(SORTS)
                    };
                    item.insert("GSI1SK".into(), v);
                }
            }
            if self.chance(30) {
                item.insert("GSI2PK".into(), self.key_string(GSI_PARTITIONS));
            }
            if self.chance(40) {
                item.insert("LSK".into(), self.key_string(SORTS));
            }
        } else if table == "num" && self.chance(50) {
            item.insert("G".into(), self.key_string(GSI_PARTITIONS));
            if self.chance(90) {
                item.insert("score".into(), n(self.word(NUM_SORTS)));
            }
        }
        let attrs = self.rng.usize(0..6);
        for _ in 0..attrs {
            let name = self.word(NAMES).to_string();
            let v = match name.as_str() {
                "ss" => self.string_set(),
                "ns" => self.number_set(),
                "bs" => self.binary_set(),
                "n" => self.number(),
                "m" => self.map_value(),
                "l" => {
                    let len = self.rng.usize(0..4);
                    AttributeValue::L((0..len).map(|_| self.value(1)).collect())
                }
                _ => self.value(2),
            };
            item.insert(name, v);
        }
        item
    }

    fn map_value(&mut self) -> AttributeValue {
        let len = self.rng.usize(0..4);
        AttributeValue::M(
            (0..len)
                .map(|_| (self.word(MAP_KEYS).to_string(), self.value(1)))
                .collect(),
        )
    }

    /// A document path: mostly top-level attributes, some nested in `m` and `l`, now and then a
    /// key attribute.
    fn path(&mut self, table: &str) -> Path {
        match self.rng.u32(0..100) {
            0..=54 => Path::attr(self.word(NAMES)),
            55..=69 => Path::attr("m").key(self.word(MAP_KEYS)),
            70..=74 => Path::attr("m")
                .key(self.word(MAP_KEYS))
                .key(self.word(MAP_KEYS)),
            75..=86 => Path::attr("l").index(self.rng.usize(0..4)),
            87..=89 => Path::attr("m").key("l").index(self.rng.usize(0..2)),
            90..=94 if table == "main" => {
                Path::attr(*self.pick(&["GSI1PK", "GSI1SK", "GSI2PK", "LSK"]))
            }
            90..=94 if table == "num" => Path::attr(*self.pick(&["G", "score"])),
            _ => Path::attr(*self.pick(&["PK", "SK"])),
        }
    }

    fn operand(&mut self, table: &str) -> Operand {
        match self.rng.u32(0..10) {
            0..=5 => Operand::Value(self.value(1)),
            6..=8 => Operand::Path(self.path(table)),
            _ => Operand::Size(self.path(table)),
        }
    }

    fn comparator(&mut self) -> Comparator {
        *self.pick(&[
            Comparator::Eq,
            Comparator::Ne,
            Comparator::Lt,
            Comparator::Le,
            Comparator::Gt,
            Comparator::Ge,
        ])
    }

    /// A condition of up to `depth` levels of AND, OR and NOT.
    fn condition(&mut self, table: &str, depth: u32) -> Condition {
        let kinds = if depth == 0 { 9 } else { 12 };
        match self.rng.u32(0..kinds) {
            0 | 1 => {
                let left = if self.chance(80) {
                    Operand::Path(self.path(table))
                } else {
                    Operand::Size(self.path(table))
                };
                let cmp = self.comparator();
                Condition::Compare(left, cmp, self.operand(table))
            }
            2 => Condition::Between(
                Operand::Path(self.path(table)),
                self.operand(table),
                self.operand(table),
            ),
            3 => {
                let len = self.rng.usize(1..4);
                Condition::In(
                    Operand::Path(self.path(table)),
                    (0..len).map(|_| Operand::Value(self.value(0))).collect(),
                )
            }
            4 => Condition::AttributeExists(self.path(table)),
            5 => Condition::AttributeNotExists(self.path(table)),
            6 => {
                let ty = *self.pick(&[
                    AttributeType::S,
                    AttributeType::Ss,
                    AttributeType::N,
                    AttributeType::Ns,
                    AttributeType::B,
                    AttributeType::Bs,
                    AttributeType::Bool,
                    AttributeType::Null,
                    AttributeType::L,
                    AttributeType::M,
                ]);
                Condition::AttributeType(self.path(table), ty)
            }
            7 => {
                let v = if self.chance(80) {
                    Operand::Value(self.string())
                } else {
                    self.operand(table)
                };
                Condition::BeginsWith(self.path(table), v)
            }
            8 => Condition::Contains(self.path(table), Operand::Value(self.value(0))),
            9 => {
                let len = self.rng.usize(2..4);
                Condition::And((0..len).map(|_| self.condition(table, depth - 1)).collect())
            }
            10 => {
                let len = self.rng.usize(2..4);
                Condition::Or((0..len).map(|_| self.condition(table, depth - 1)).collect())
            }
            _ => Condition::Not(Box::new(self.condition(table, depth - 1))),
        }
    }

    fn write_condition(&mut self, table: &str) -> Option<Condition> {
        match self.rng.u32(0..10) {
            0..=4 => None,
            5 => Some(Condition::AttributeNotExists(Path::attr("PK"))),
            6 => Some(Condition::AttributeExists(Path::attr("PK"))),
            _ => Some(self.condition(table, 2)),
        }
    }

    fn put(&mut self) -> PutRequest {
        let table = self.table();
        PutRequest::new(table, self.item(table))
            .with_condition(self.write_condition(table))
            .with_return_values(if self.rng.bool() {
                ReturnValues::AllOld
            } else {
                ReturnValues::None
            })
            .with_return_old_on_condition_failure(self.rng.bool())
    }

    fn update_operand(&mut self, table: &str, depth: u32) -> UpdateOperand {
        match self.rng.u32(0..if depth == 0 { 2 } else { 4 }) {
            0 => UpdateOperand::Value(self.value(1)),
            1 => UpdateOperand::Path(self.path(table)),
            2 => UpdateOperand::IfNotExists(
                self.path(table),
                Box::new(self.update_operand(table, depth - 1)),
            ),
            _ => {
                let list = UpdateOperand::Value(AttributeValue::L(
                    (0..self.rng.usize(0..3)).map(|_| self.value(0)).collect(),
                ));
                let other = if self.chance(70) {
                    UpdateOperand::Path(Path::attr("l"))
                } else {
                    self.update_operand(table, depth - 1)
                };
                if self.rng.bool() {
                    UpdateOperand::ListAppend(Box::new(other), Box::new(list))
                } else {
                    UpdateOperand::ListAppend(Box::new(list), Box::new(other))
                }
            }
        }
    }

    fn numeric_operand(&mut self, table: &str) -> UpdateOperand {
        match self.rng.u32(0..10) {
            0..=5 => UpdateOperand::Value(self.number()),
            6..=7 => UpdateOperand::Path(Path::attr(*self.pick(&["n", "a", "b"]))),
            8 => UpdateOperand::IfNotExists(
                Path::attr("n"),
                Box::new(UpdateOperand::Value(n(self.word(NUMBERS)))),
            ),
            _ => self.update_operand(table, 1),
        }
    }

    /// One to four actions over random paths (so overlapping paths, a validation error, occur).
    fn update_expr(&mut self, table: &str) -> Update {
        let mut update = Update::default();
        let actions = self.rng.usize(1..5);
        for _ in 0..actions {
            match self.rng.u32(0..100) {
                0..=44 => {
                    let path = self.path(table);
                    let value = match self.rng.u32(0..10) {
                        0..=5 => SetValue::Operand(self.update_operand(table, 2)),
                        6..=7 => {
                            SetValue::Plus(self.numeric_operand(table), self.numeric_operand(table))
                        }
                        _ => SetValue::Minus(
                            self.numeric_operand(table),
                            self.numeric_operand(table),
                        ),
                    };
                    update.set.push((path, value));
                }
                45..=64 => update.remove.push(self.path(table)),
                65..=84 => {
                    let (path, value) = match self.rng.u32(0..4) {
                        0 | 1 => (Path::attr(*self.pick(&["n", "a", "c"])), self.number()),
                        2 => (Path::attr(*self.pick(&["ss", "b"])), self.string_set()),
                        _ => (self.path(table), self.value(0)),
                    };
                    update.add.push((path, value));
                }
                _ => {
                    let (path, value) = match self.rng.u32(0..4) {
                        0 | 1 => (Path::attr("ss"), self.string_set()),
                        2 => (Path::attr("ns"), self.number_set()),
                        _ => (self.path(table), self.value(0)),
                    };
                    update.delete.push((path, value));
                }
            }
        }
        update
    }

    fn update(&mut self) -> UpdateRequest {
        let table = self.table();
        UpdateRequest::new(table, self.key(table), self.update_expr(table))
            .with_condition(self.write_condition(table))
            .with_return_values(*self.pick(&[
                ReturnValues::None,
                ReturnValues::AllOld,
                ReturnValues::UpdatedOld,
                ReturnValues::AllNew,
                ReturnValues::UpdatedNew,
            ]))
            .with_return_old_on_condition_failure(self.rng.bool())
    }

    fn delete(&mut self) -> DeleteRequest {
        let table = self.table();
        DeleteRequest::new(table, self.key(table))
            .with_condition(self.write_condition(table))
            .with_return_values(if self.rng.bool() {
                ReturnValues::AllOld
            } else {
                ReturnValues::None
            })
            .with_return_old_on_condition_failure(self.rng.bool())
    }

    fn projection(&mut self, table: &str) -> Option<Vec<Path>> {
        if self.chance(75) {
            return None;
        }
        let len = self.rng.usize(1..4);
        Some((0..len).map(|_| self.path(table)).collect())
    }

    fn get(&mut self) -> GetRequest<'static> {
        let table = self.table();
        let key = self.key(table);
        let mut request = GetRequest::new(table, key);
        request.consistent_read = self.rng.bool();
        request.projection = self.projection(table);
        request
    }

    fn sort_condition(
        &mut self,
        value: &mut dyn FnMut(&mut Self) -> AttributeValue,
    ) -> SortCondition {
        match self.rng.u32(0..7) {
            0 => SortCondition::Eq(value(self)),
            1 => SortCondition::Lt(value(self)),
            2 => SortCondition::Le(value(self)),
            3 => SortCondition::Gt(value(self)),
            4 => SortCondition::Ge(value(self)),
            5 => {
                let (a, b) = (value(self), value(self));
                SortCondition::Between(a, b)
            }
            _ => SortCondition::BeginsWith(value(self)),
        }
    }

    fn query(&mut self) -> Op {
        let table = self.table();
        let (index, pk_name, pk_pool, sk_name): (Option<&str>, &str, &[&str], Option<&str>) =
            match (table, self.rng.u32(0..4)) {
                ("main", 0) => (Some("GSI1"), "GSI1PK", GSI_PARTITIONS, Some("GSI1SK")),
                ("main", 1) => (Some("GSI2"), "GSI2PK", GSI_PARTITIONS, None),
                ("main", 2) => (Some("LSI1"), "PK", PARTITIONS, Some("LSK")),
                ("num", 0) => (Some("ByScore"), "G", GSI_PARTITIONS, Some("score")),
                _ => (None, "PK", PARTITIONS, Some("SK")),
            };
        let partition = if table == "bin" {
            AttributeValue::B(Blob::new(vec![self.rng.u8(0..2)]))
        } else {
            self.key_string(pk_pool)
        };
        let mut key_condition = KeyCondition::partition(pk_name, partition);
        if let Some(sk) = sk_name
            && self.chance(60)
        {
            let numeric = table == "num";
            let binary = table == "bin";
            let cond = self.sort_condition(&mut |g: &mut Gen| {
                if g.chance(2) {
                    return g.value(0);
                }
                if numeric {
                    n(g.word(NUM_SORTS))
                } else if binary {
                    AttributeValue::B(Blob::new(g.bytes()))
                } else {
                    s(g.word(SORTS))
                }
            });
            key_condition = key_condition.sort(sk, cond);
        }
        let mut request = QueryRequest::new(table, index, key_condition);
        if self.chance(30) {
            request.filter = Some(self.condition(table, 1));
        }
        request.projection = self.projection(table);
        if self.chance(50) {
            request.limit = Some(self.rng.u32(1..5));
        }
        request.scan_forward = self.rng.bool();
        request.consistent_read = self.chance(20);
        request.count_only = self.chance(10);
        Op::Query {
            request,
            max_pages: self.rng.u32(1..12),
        }
    }

    fn scan(&mut self) -> ScanRequest {
        let table = self.table();
        let index = match (table, self.rng.u32(0..5)) {
            ("main", 0) => Some("GSI1".to_owned()),
            ("main", 1) => Some("LSI1".to_owned()),
            ("num", 0) => Some("ByScore".to_owned()),
            _ => None,
        };
        ScanRequest::new(table)
            .with_index(index.as_deref())
            .with_filter(if self.chance(40) {
                Some(self.condition(table, 1))
            } else {
                None
            })
            .with_projection(self.projection(table))
            .with_limit(if self.chance(50) {
                Some(self.rng.u32(1..7))
            } else {
                None
            })
            .with_consistent_read(self.chance(20))
            .with_segment(if self.chance(40) {
                Some((0, self.rng.u32(1..5)))
            } else {
                None
            })
            .with_count_only(self.chance(10))
    }

    fn table_keys(&mut self, max: usize) -> Vec<TableKey> {
        let len = self.rng.usize(1..=max);
        (0..len)
            .map(|_| {
                let table = self.table();
                TableKey {
                    table: table.into(),
                    key: self.key(table),
                }
            })
            .collect()
    }

    fn batch_get(&mut self) -> BatchGetRequest {
        BatchGetRequest::new(self.table_keys(6)).with_consistent_read(self.rng.bool())
    }

    fn batch_write(&mut self) -> BatchWriteRequest {
        let len = self.rng.usize(1..7);
        let writes = (0..len)
            .map(|_| {
                let table = self.table();
                if self.chance(70) {
                    WriteRequest::put(table, self.item(table))
                } else {
                    WriteRequest::delete(table, self.key(table))
                }
            })
            .collect();
        BatchWriteRequest::new(writes)
    }

    fn transact_get(&mut self) -> TransactGetRequest {
        let gets = self
            .table_keys(4)
            .into_iter()
            .map(|TableKey { table, key }| {
                let projection = self.projection(&table);
                TransactGetItem::new(table, key).with_projection(projection)
            })
            .collect();
        TransactGetRequest::new(gets)
    }

    fn transact_write(&mut self) -> TransactWriteRequest {
        let len = self.rng.usize(1..5);
        let actions = (0..len)
            .map(|_| {
                let table = self.table();
                let return_old_on_condition_failure = self.rng.bool();
                match self.rng.u32(0..4) {
                    0 => TransactWriteItem::put(table, self.item(table))
                        .with_condition(self.write_condition(table))
                        .with_return_old_on_condition_failure(return_old_on_condition_failure),
                    1 => TransactWriteItem::update(table, self.key(table), self.update_expr(table))
                        .with_condition(self.write_condition(table))
                        .with_return_old_on_condition_failure(return_old_on_condition_failure),
                    2 => TransactWriteItem::delete(table, self.key(table))
                        .with_condition(self.write_condition(table))
                        .with_return_old_on_condition_failure(return_old_on_condition_failure),
                    _ => TransactWriteItem::condition_check(
                        table,
                        self.key(table),
                        self.condition(table, 1),
                    )
                    .with_return_old_on_condition_failure(return_old_on_condition_failure),
                }
            })
            .collect();
        TransactWriteRequest::new(actions)
    }
}

/// The request kinds a sequence holds, for the coverage check.
pub fn kind(op: &Op) -> &'static str {
    match op {
        Op::Put(_) => "put",
        Op::Update(_) => "update",
        Op::Delete(_) => "delete",
        Op::Get(_) => "get",
        Op::Query { .. } => "query",
        Op::Scan(_) => "scan",
        Op::BatchGet(_) => "batch_get",
        Op::BatchWrite(_) => "batch_write",
        Op::TransactGet(_) => "transact_get",
        Op::TransactWrite(_) => "transact_write",
    }
}

/// True when `path` goes through a list index (used by the coverage check).
pub fn is_nested(path: &Path) -> bool {
    path.0.len() > 1 || matches!(path.0.first(), Some(PathElement::Index(_)))
}
