//! Hot partitions, found before production: a simulation that replays a workload against
//! DynamoDB's per-partition limits in virtual time, and the limits themselves
//! ([`PartitionLimits`]), which [`MemoryStore::with_partition_limits`] also enforces in real
//! time.
//!
//! # The rules simulated
//!
//! From the DynamoDB Developer Guide, "Best practices for designing and using partition keys
//! effectively" and "DynamoDB burst and adaptive capacity"
//! (<https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html>,
//! <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/burst-adaptive-capacity.html>),
//! and AWS's knowledge-center article on spiky workloads
//! (<https://repost.aws/knowledge-center/dynamodb-spiky-workloads-short-intervals>):
//!
//! - **Per-partition limits.** A partition delivers at most 3,000 read units and 1,000 write units
//!   per second, "or a combination of both": here a read unit uses 1/3,000 of a partition's
//!   second and a write unit 1/1,000, and a partition has one second to spend per second. One
//!   read unit is a strongly consistent read of up to 4 KB (two eventually consistent ones), one
//!   write unit a write of up to 1 KB ([`read_units`], [`write_units`]: the rules `MemoryStore`
//!   reports consumed capacity with).
//! - **Burst capacity.** A provisioned table keeps up to 300 seconds of unused read and write
//!   capacity, and a burst may spend it faster than the provisioned rate. Burst capacity cannot
//!   lift a partition over its per-partition limits. (AWS gives it on a best-effort basis; the
//!   simulation assumes the table was idle for 5 minutes before the run, so the bucket starts
//!   full.)
//! - **Adaptive capacity** (on by default, as in DynamoDB): a hot partition may use the table's
//!   unused throughput, and frequently accessed items are isolated onto partitions of their own.
//!   What it never does: lift one partition key value over the per-partition limits. So with it,
//!   each partition key value is limited on its own, and all of them together by the table's
//!   throughput. Without it ([`Workload::without_adaptive_capacity`], DynamoDB before 2019),
//!   key values hash onto a fixed number of partitions, each with an equal share of the table's
//!   provisioned throughput (and 300 seconds of burst of that share), capped at the partition
//!   limits.
//! - **On-demand tables** have no provisioned rate: only the per-partition limits apply (the
//!   simulation models no table-level quota).
//!
//! A throttled request consumes nothing and is not retried: the report counts the requests that
//! DynamoDB would answer with `ProvisionedThroughputExceededException`. The model is
//! deliberately simple (isolation is instant, a partition never splits for size); it answers the
//! question a design review asks: does this key take more than one partition can give?
//!
//! # Example
//!
//! A flash sale writing every order under one GSI partition key, against the same load spread
//! over 8 shards:
//!
//! ```
//! use dyno_core::hot::{Keys, Pattern, Workload};
//!
//! let report = Workload::new(10.0)
//!     .pattern(Pattern::writes("orders by sale", 2_000.0, Keys::single("SALE#BF-2024")))
//!     .pattern(Pattern::writes("orders by sale, sharded", 2_000.0, Keys::sharded("SALE#BF-2024", 8)))
//!     .simulate();
//! let (hot, sharded) = (&report.patterns[0], &report.patterns[1]);
//! assert!(hot.throttled > hot.requests / 3); // 1,000 of every 2,000 writes a second
//! assert_eq!(sharded.throttled, 0);          // 250 writes a second per shard
//! println!("{report}");
//! ```
//!
//! [`MemoryStore::with_partition_limits`]: crate::MemoryStore::with_partition_limits
//! [`read_units`]: crate::store::read_units
//! [`write_units`]: crate::store::write_units

use std::collections::HashMap;
use std::fmt;

use crate::capacity::{read_units, write_units};

/// The throughput one partition delivers per second (DynamoDB's documented defaults with
/// [`PartitionLimits::dynamodb`]: 3,000 read units and 1,000 write units, or a combination).
///
/// ```
/// use dyno_core::hot::PartitionLimits;
///
/// let limits = PartitionLimits::dynamodb();
/// assert_eq!((limits.read_units_per_second, limits.write_units_per_second), (3000.0, 1000.0));
/// // A smaller partition, so that a test reaches the limit with a few requests:
/// let tiny = PartitionLimits::new(30.0, 10.0);
/// # let _ = tiny;
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct PartitionLimits {
    /// Read capacity units per second.
    pub read_units_per_second: f64,
    /// Write capacity units per second.
    pub write_units_per_second: f64,
}

impl PartitionLimits {
    /// DynamoDB's per-partition limits: 3,000 read units and 1,000 write units per second.
    pub fn dynamodb() -> Self {
        PartitionLimits::new(3000.0, 1000.0)
    }

    /// Other limits (for a test that wants to reach them with few requests). Both must be
    /// positive.
    ///
    /// # Panics
    ///
    /// When a limit is not a positive finite number.
    pub fn new(read_units_per_second: f64, write_units_per_second: f64) -> Self {
        assert!(
            read_units_per_second.is_finite()
                && read_units_per_second > 0.0
                && write_units_per_second.is_finite()
                && write_units_per_second > 0.0,
            "partition limits must be positive, found {read_units_per_second} RCU/s and {write_units_per_second} WCU/s"
        );
        PartitionLimits {
            read_units_per_second,
            write_units_per_second,
        }
    }

    /// The share of one partition-second that `read` read units and `write` write units use
    /// ("3,000 RCU or 1,000 WCU per second, or a combination of both").
    pub fn cost(&self, read: f64, write: f64) -> f64 {
        read / self.read_units_per_second + write / self.write_units_per_second
    }
}

impl Default for PartitionLimits {
    fn default() -> Self {
        PartitionLimits::dynamodb()
    }
}

/// A token bucket in virtual seconds: `level` tokens now, refilled at `rate` per second up to
/// `capacity`. The one rule both the simulation and `MemoryStore`'s throttle apply.
#[derive(Debug, Clone)]
pub struct Bucket {
    level: f64,
    capacity: f64,
    rate: f64,
    at: f64,
}

impl Bucket {
    /// A full bucket at time `now`.
    pub fn full(capacity: f64, rate: f64, now: f64) -> Self {
        Bucket {
            level: capacity,
            capacity,
            rate,
            at: now,
        }
    }

    /// A partition's bucket: one partition-second, refilled by one per second (no burst: burst
    /// capacity never lifts a partition over its limits).
    pub fn partition(now: f64) -> Self {
        Bucket::full(1.0, 1.0, now)
    }

    fn refill(&mut self, now: f64) {
        if now > self.at {
            self.level = (self.level + (now - self.at) * self.rate).min(self.capacity);
            self.at = now;
        }
    }

    /// Whether `cost` tokens are there at `now` (refilling first).
    pub fn has(&mut self, now: f64, cost: f64) -> bool {
        self.refill(now);
        // A request bigger than the whole bucket could never pass; it needs the bucket full.
        self.level >= cost.min(self.capacity) - 1e-9
    }

    /// Takes `cost` tokens (the level may go below zero: a debt later refills repay; a
    /// negative cost gives tokens back, up to the capacity).
    pub fn take(&mut self, now: f64, cost: f64) {
        self.refill(now);
        self.level = (self.level - cost).min(self.capacity);
    }
}

/// The table's own throughput, shared by its partitions.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Throughput {
    /// On-demand capacity: no table rate; only the per-partition limits apply.
    OnDemand,
    /// Provisioned capacity units per second, with up to 300 seconds of unused capacity kept
    /// as burst capacity.
    Provisioned {
        /// Read capacity units per second.
        read: f64,
        /// Write capacity units per second.
        write: f64,
    },
}

/// What a pattern's requests do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Access {
    /// Reads of one item each (GetItem, or a Query reading `item_bytes`).
    Read {
        /// Strongly consistent (a full read unit per 4 KB) or eventually consistent (half).
        consistent: bool,
    },
    /// Writes of one item each.
    Write,
}

/// Which partition key values a pattern's requests go to.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Keys {
    /// Every request on one key value (a flash sale's product, a global counter).
    Single(String),
    /// Requests spread evenly over `count` values `{prefix}0` .. `{prefix}{count-1}`.
    Uniform {
        /// The text before the number.
        prefix: String,
        /// How many values.
        count: u32,
    },
    /// Requests over `count` values with Zipf's law: value `i` (from 0) drawn with weight
    /// `1 / (i + 1)^exponent`, so `{prefix}0` is the hottest.
    Zipf {
        /// The text before the number.
        prefix: String,
        /// How many values.
        count: u32,
        /// The skew (1.0 is the classic law; 0 is uniform).
        exponent: f64,
    },
}

impl Keys {
    /// Every request on `key`.
    pub fn single(key: impl Into<String>) -> Self {
        Keys::Single(key.into())
    }

    /// `count` values `{prefix}0..`, evenly.
    pub fn uniform(prefix: impl Into<String>, count: u32) -> Self {
        Keys::Uniform {
            prefix: prefix.into(),
            count: count.max(1),
        }
    }

    /// `key` write-sharded `shards` ways: `{key}#0` .. `{key}#{shards-1}`, evenly (the suffix
    /// dyno's `shards = N` index option writes).
    pub fn sharded(key: impl Into<String>, shards: u32) -> Self {
        Keys::uniform(format!("{}#", key.into()), shards)
    }

    /// `count` values `{prefix}0..` drawn by Zipf's law with `exponent`.
    pub fn zipf(prefix: impl Into<String>, count: u32, exponent: f64) -> Self {
        Keys::Zipf {
            prefix: prefix.into(),
            count: count.max(1),
            exponent,
        }
    }
}

/// One access pattern of a workload: requests at a mean rate, each reading or writing one item
/// of `item_bytes` under a key drawn from [`Keys`].
///
/// ```
/// use dyno_core::hot::{Keys, Pattern};
///
/// let views = Pattern::reads("product page", 5_000.0, Keys::single("PRODUCT#console-x"))
///     .item_bytes(6_000) // 2 read units each, 1 when eventually consistent
///     .eventually_consistent();
/// # let _ = views;
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Pattern {
    /// The pattern's name in the report.
    pub name: String,
    /// Read or write.
    pub access: Access,
    /// Mean requests per second (arrivals are a Poisson process).
    pub per_second: f64,
    /// Size of the item each request reads or writes (DynamoDB's item size), 1 KB by default.
    pub item_bytes: usize,
    /// The partition key values the requests go to.
    pub keys: Keys,
}

impl Pattern {
    /// Strongly consistent reads at `per_second` on `keys`.
    pub fn reads(name: impl Into<String>, per_second: f64, keys: Keys) -> Self {
        Pattern::new(name, Access::Read { consistent: true }, per_second, keys)
    }

    /// Writes at `per_second` on `keys`.
    pub fn writes(name: impl Into<String>, per_second: f64, keys: Keys) -> Self {
        Pattern::new(name, Access::Write, per_second, keys)
    }

    fn new(name: impl Into<String>, access: Access, per_second: f64, keys: Keys) -> Self {
        Pattern {
            name: name.into(),
            access,
            per_second: per_second.max(0.0),
            item_bytes: 1024,
            keys,
        }
    }

    /// Items of `bytes` each.
    #[must_use]
    pub fn item_bytes(mut self, bytes: usize) -> Self {
        self.item_bytes = bytes;
        self
    }

    /// Eventually consistent reads (half the read units); no effect on writes.
    #[must_use]
    pub fn eventually_consistent(mut self) -> Self {
        if let Access::Read { consistent } = &mut self.access {
            *consistent = false;
        }
        self
    }

    /// (read units, write units) of one request.
    fn units(&self) -> (f64, f64) {
        match self.access {
            Access::Read { consistent } => (read_units(self.item_bytes, consistent), 0.0),
            Access::Write => (0.0, write_units(self.item_bytes)),
        }
    }
}

/// A workload to replay: patterns, how long, against which table throughput and limits. Build
/// it with [`Workload::new`] and the setters, then [`Workload::simulate`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Workload {
    /// The access patterns, running at the same time.
    pub patterns: Vec<Pattern>,
    /// Virtual seconds to replay.
    pub seconds: f64,
    /// Seed of the arrival times and key draws: the same seed gives the same report.
    pub seed: u64,
    /// The table's throughput (on-demand by default).
    pub throughput: Throughput,
    /// The per-partition limits (DynamoDB's by default).
    pub limits: PartitionLimits,
    /// `None` with adaptive capacity (the default); without it, the number of partitions the
    /// table's key values hash onto.
    pub partitions_without_adaptive: Option<u32>,
}

impl Workload {
    /// An empty workload of `seconds` virtual seconds on an on-demand table with DynamoDB's
    /// limits and adaptive capacity, seed 0.
    pub fn new(seconds: f64) -> Self {
        Workload {
            patterns: Vec::new(),
            seconds: seconds.max(0.0),
            seed: 0,
            throughput: Throughput::OnDemand,
            limits: PartitionLimits::dynamodb(),
            partitions_without_adaptive: None,
        }
    }

    /// Adds a pattern.
    #[must_use]
    pub fn pattern(mut self, pattern: Pattern) -> Self {
        self.patterns.push(pattern);
        self
    }

    /// Sets the seed.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// A provisioned table with `read` and `write` capacity units per second.
    #[must_use]
    pub fn provisioned(mut self, read: f64, write: f64) -> Self {
        self.throughput = Throughput::Provisioned { read, write };
        self
    }

    /// Other per-partition limits.
    #[must_use]
    pub fn limits(mut self, limits: PartitionLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Without adaptive capacity: key values hash onto `partitions` partitions, each with an
    /// equal share of the provisioned throughput (what adaptive capacity fixes).
    #[must_use]
    pub fn without_adaptive_capacity(mut self, partitions: u32) -> Self {
        self.partitions_without_adaptive = Some(partitions.max(1));
        self
    }

    /// Replays the workload; see [`simulate`].
    pub fn simulate(&self) -> Report {
        simulate(self)
    }
}

/// What one pattern's requests met.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PatternReport {
    /// The pattern's name.
    pub name: String,
    /// Requests sent.
    pub requests: u64,
    /// Requests throttled (`ProvisionedThroughputExceededException`).
    pub throttled: u64,
    /// Capacity units consumed by the requests that passed.
    pub units: f64,
}

/// What one partition key value met, over every pattern.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PartitionReport {
    /// The partition key value.
    pub key: String,
    /// The partition it hashed onto, without adaptive capacity.
    pub partition: Option<u32>,
    /// Requests sent to it.
    pub requests: u64,
    /// Requests throttled.
    pub throttled: u64,
    /// Throttled because the partition was over its per-partition limits (the throttling that
    /// only a better key design fixes).
    pub throttled_by_partition_limit: u64,
    /// Read units consumed.
    pub read_units: f64,
    /// Write units consumed.
    pub write_units: f64,
    /// Read and write units requested in its busiest second, as a share of one partition's
    /// second (above 1.0: more than one partition can give).
    pub peak_load: f64,
}

/// The result of [`simulate`]: per pattern, in the workload's order, and per partition key
/// value, most throttled first (then busiest). Its `Display` prints both as tables (the 10
/// hottest keys).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Report {
    /// Per pattern.
    pub patterns: Vec<PatternReport>,
    /// Per partition key value.
    pub partitions: Vec<PartitionReport>,
}

impl Report {
    /// Requests throttled over all patterns.
    pub fn throttled(&self) -> u64 {
        self.patterns.iter().map(|p| p.throttled).sum()
    }

    /// The report of the pattern named `name`.
    pub fn pattern(&self, name: &str) -> Option<&PatternReport> {
        self.patterns.iter().find(|p| p.name == name)
    }

    /// The report of partition key value `key`.
    pub fn partition(&self, key: &str) -> Option<&PartitionReport> {
        self.partitions.iter().find(|p| p.key == key)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<32} {:>10} {:>10} {:>7}",
            "pattern", "requests", "throttled", "%"
        )?;
        for p in &self.patterns {
            writeln!(
                f,
                "{:<32} {:>10} {:>10} {:>6.1}%",
                p.name,
                p.requests,
                p.throttled,
                percent(p.throttled, p.requests)
            )?;
        }
        writeln!(
            f,
            "{:<32} {:>10} {:>10} {:>7} {:>10}",
            "partition key", "requests", "throttled", "%", "peak load"
        )?;
        for p in self.partitions.iter().take(10) {
            writeln!(
                f,
                "{:<32} {:>10} {:>10} {:>6.1}% {:>9.0}%",
                p.key,
                p.requests,
                p.throttled,
                percent(p.throttled, p.requests),
                p.peak_load * 100.0
            )?;
        }
        if self.partitions.len() > 10 {
            writeln!(f, "({} more keys)", self.partitions.len() - 10)?;
        }
        Ok(())
    }
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// How a pattern draws its keys: the key names, and a cumulative distribution (empty: even).
struct Draw {
    names: Vec<String>,
    cdf: Vec<f64>,
}

impl Draw {
    fn new(keys: &Keys) -> Self {
        match keys {
            Keys::Single(k) => Draw {
                names: vec![k.clone()],
                cdf: Vec::new(),
            },
            Keys::Uniform { prefix, count } => Draw {
                names: (0..*count).map(|i| format!("{prefix}{i}")).collect(),
                cdf: Vec::new(),
            },
            Keys::Zipf {
                prefix,
                count,
                exponent,
            } => {
                let mut total = 0.0;
                let mut cdf: Vec<f64> = (0..*count)
                    .map(|i| {
                        total += 1.0 / f64::from(i + 1).powf(*exponent);
                        total
                    })
                    .collect();
                cdf.iter_mut().for_each(|c| *c /= total);
                Draw {
                    names: (0..*count).map(|i| format!("{prefix}{i}")).collect(),
                    cdf,
                }
            }
        }
    }

    fn pick(&self, rng: &mut fastrand::Rng) -> usize {
        if self.cdf.is_empty() {
            rng.usize(..self.names.len())
        } else {
            let u = rng.f64();
            self.cdf
                .partition_point(|c| *c < u)
                .min(self.names.len() - 1)
        }
    }
}

/// One request in virtual time.
struct Arrival {
    at: f64,
    pattern: usize,
    key: usize,
}

/// The state of one partition key value during the run.
struct KeyState {
    report: PartitionReport,
    bucket: Bucket,
    second: i64,
    load_this_second: f64,
}

/// Replays `workload` in virtual time and reports the requests that would be throttled, per
/// pattern and per partition key value. Pure and deterministic: the same workload (seed
/// included) gives the same report; no clock is read and nothing sleeps.
///
/// A request passes when every limit on its way has the capacity: its key value's
/// per-partition limit, then (provisioned) the table's rate with its burst capacity, or
/// without adaptive capacity its partition's share. A throttled request consumes nothing.
pub fn simulate(workload: &Workload) -> Report {
    let draws: Vec<Draw> = workload
        .patterns
        .iter()
        .map(|p| Draw::new(&p.keys))
        .collect();
    // Arrivals: a Poisson process per pattern, each with its own seeded generator.
    let mut arrivals = Vec::new();
    for (i, (pattern, draw)) in workload.patterns.iter().zip(&draws).enumerate() {
        if pattern.per_second <= 0.0 {
            continue;
        }
        let mut rng = fastrand::Rng::with_seed(
            workload.seed ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        );
        let mut at = 0.0;
        loop {
            // 1 - u is in (0, 1]: its logarithm is finite.
            at += -(1.0 - rng.f64()).ln() / pattern.per_second;
            if at >= workload.seconds {
                break;
            }
            arrivals.push(Arrival {
                at,
                pattern: i,
                key: draw.pick(&mut rng),
            });
        }
    }
    arrivals.sort_by(|a, b| a.at.total_cmp(&b.at).then(a.pattern.cmp(&b.pattern)));

    let limits = workload.limits;
    let burst = 300.0;
    // The table's buckets (provisioned), or each partition's share without adaptive capacity.
    let (mut table_read, mut table_write) = match workload.throughput {
        Throughput::Provisioned { read, write }
            if workload.partitions_without_adaptive.is_none() =>
        {
            (
                Some(Bucket::full(read * burst, read, 0.0)),
                Some(Bucket::full(write * burst, write, 0.0)),
            )
        }
        _ => (None, None),
    };
    let mut shares: Vec<(Bucket, Bucket, Bucket)> = match workload.partitions_without_adaptive {
        Some(n) => (0..n)
            .map(|_| {
                let (read, write) = match workload.throughput {
                    Throughput::Provisioned { read, write } => (
                        (read / f64::from(n)).min(limits.read_units_per_second),
                        (write / f64::from(n)).min(limits.write_units_per_second),
                    ),
                    Throughput::OnDemand => {
                        (limits.read_units_per_second, limits.write_units_per_second)
                    }
                };
                (
                    Bucket::full(read * burst, read, 0.0),
                    Bucket::full(write * burst, write, 0.0),
                    Bucket::partition(0.0),
                )
            })
            .collect(),
        None => Vec::new(),
    };

    let mut patterns: Vec<PatternReport> = workload
        .patterns
        .iter()
        .map(|p| PatternReport {
            name: p.name.clone(),
            requests: 0,
            throttled: 0,
            units: 0.0,
        })
        .collect();
    let mut keys: HashMap<String, KeyState> = HashMap::new();
    for a in &arrivals {
        let pattern = &workload.patterns[a.pattern];
        let name = &draws[a.pattern].names[a.key];
        let (read, write) = pattern.units();
        let cost = limits.cost(read, write);
        let partition = workload
            .partitions_without_adaptive
            .map(|n| (crate::hash::fnv1a(name.as_bytes()) % u64::from(n)) as u32);
        let state = keys.entry(name.clone()).or_insert_with(|| KeyState {
            report: PartitionReport {
                key: name.clone(),
                partition,
                requests: 0,
                throttled: 0,
                throttled_by_partition_limit: 0,
                read_units: 0.0,
                write_units: 0.0,
                peak_load: 0.0,
            },
            bucket: Bucket::partition(0.0),
            second: 0,
            load_this_second: 0.0,
        });
        let second = a.at.floor() as i64;
        if second != state.second {
            state.second = second;
            state.load_this_second = 0.0;
        }
        state.load_this_second += cost;
        state.report.peak_load = state.report.peak_load.max(state.load_this_second);
        state.report.requests += 1;
        patterns[a.pattern].requests += 1;

        let over_partition = !state.bucket.has(a.at, cost)
            || partition.is_some_and(|p| !shares[p as usize].2.has(a.at, cost));
        let over_table = !over_partition && {
            let (r, w) = match partition {
                Some(p) => {
                    let (r, w, _) = &mut shares[p as usize];
                    (Some(r), Some(w))
                }
                None => (table_read.as_mut(), table_write.as_mut()),
            };
            (read > 0.0 && r.is_some_and(|b| !b.has(a.at, read)))
                || (write > 0.0 && w.is_some_and(|b| !b.has(a.at, write)))
        };
        if over_partition || over_table {
            state.report.throttled += 1;
            state.report.throttled_by_partition_limit += u64::from(over_partition);
            patterns[a.pattern].throttled += 1;
            continue;
        }
        state.bucket.take(a.at, cost);
        match partition {
            Some(p) => {
                let (r, w, hard) = &mut shares[p as usize];
                r.take(a.at, read);
                w.take(a.at, write);
                hard.take(a.at, cost);
            }
            None => {
                if let Some(b) = &mut table_read {
                    b.take(a.at, read);
                }
                if let Some(b) = &mut table_write {
                    b.take(a.at, write);
                }
            }
        }
        state.report.read_units += read;
        state.report.write_units += write;
        patterns[a.pattern].units += read + write;
    }

    let mut partitions: Vec<PartitionReport> = keys.into_values().map(|k| k.report).collect();
    partitions.sort_by(|a, b| {
        b.throttled
            .cmp(&a.throttled)
            .then(b.requests.cmp(&a.requests))
            .then_with(|| a.key.cmp(&b.key))
    });
    Report {
        patterns,
        partitions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writes(name: &str, rate: f64, keys: Keys) -> Pattern {
        Pattern::writes(name, rate, keys)
    }

    #[test]
    fn one_hot_key_over_the_write_limit_is_throttled_and_sharding_it_is_not() {
        let report = Workload::new(20.0)
            .pattern(writes("hot", 2_000.0, Keys::single("SALE#1")))
            .pattern(writes("sharded", 2_000.0, Keys::sharded("SALE#2", 8)))
            .seed(7)
            .simulate();
        let hot = report.pattern("hot").unwrap();
        // 1,000 of 2,000 writes a second pass (plus the first second's full bucket).
        let passed = hot.requests - hot.throttled;
        assert!(
            (19_000..=21_500).contains(&passed),
            "{passed} passed of {}",
            hot.requests
        );
        assert!((38_000..=42_000).contains(&hot.requests), "{hot:?}");
        assert_eq!(hot.units, passed as f64);
        let key = report.partition("SALE#1").unwrap();
        assert_eq!(key.throttled, hot.throttled);
        assert_eq!(key.throttled_by_partition_limit, hot.throttled);
        assert!(key.peak_load > 1.8, "{key:?}");
        assert_eq!(report.pattern("sharded").unwrap().throttled, 0);
        assert_eq!(report.partition("SALE#2#0").unwrap().throttled, 0);
        assert_eq!(report.partitions[0].key, "SALE#1", "most throttled first");
        assert_eq!(report.partitions.len(), 9);
    }

    #[test]
    fn the_same_seed_gives_the_same_report_and_another_seed_another() {
        let w = Workload::new(5.0).pattern(writes("z", 3_000.0, Keys::zipf("K#", 100, 1.2)));
        assert_eq!(w.clone().seed(1).simulate(), w.clone().seed(1).simulate());
        assert_ne!(w.clone().seed(1).simulate(), w.seed(2).simulate());
    }

    #[test]
    fn zipf_makes_the_first_key_hot_while_uniform_spreads_the_same_rate() {
        let rate = 8_000.0;
        let report = Workload::new(10.0)
            .pattern(writes("zipf", rate, Keys::zipf("Z#", 1_000, 1.1)))
            .pattern(writes("uniform", rate, Keys::uniform("U#", 1_000)))
            .simulate();
        // Z#0 draws 1/H(1000, 1.1) ~ 17% of 8,000 = ~1,360 writes a second: over 1,000.
        let z0 = report.partition("Z#0").unwrap();
        assert!(z0.throttled > 0 && z0.peak_load > 1.0, "{z0:?}");
        assert!(report.partition("Z#50").unwrap().throttled == 0);
        assert_eq!(report.pattern("uniform").unwrap().throttled, 0);
        assert_eq!(report.pattern("zipf").unwrap().throttled, z0.throttled);
    }

    #[test]
    fn reads_and_writes_share_a_partition_and_item_size_counts() {
        // 2,000 reads (1 unit) + 500 writes (1 unit) a second: 2/3 + 1/2 of a partition.
        let mixed = Workload::new(10.0)
            .pattern(Pattern::reads("r", 2_000.0, Keys::single("K")))
            .pattern(writes("w", 500.0, Keys::single("K")))
            .simulate();
        assert!(mixed.throttled() > 0, "{mixed}");
        // The same reads eventually consistent cost half: 1/3 + 1/2 fits.
        let light = Workload::new(10.0)
            .pattern(Pattern::reads("r", 2_000.0, Keys::single("K")).eventually_consistent())
            .pattern(writes("w", 500.0, Keys::single("K")))
            .simulate();
        assert_eq!(light.throttled(), 0, "{light}");
        // 600 writes a second of 2 KB items are 1,200 units.
        let big = Workload::new(10.0)
            .pattern(writes("w", 600.0, Keys::single("K")).item_bytes(2_000))
            .simulate();
        assert!(big.throttled() > 0, "{big}");
    }

    #[test]
    fn burst_capacity_covers_a_short_spike_over_the_provisioned_rate_but_not_a_long_one() {
        // 100 WCU provisioned: 300 s of burst is 30,000 units. 200 writes a second over 100
        // keys take 100 units a second from it: 300 s of spike fit, a longer one does not.
        let spike = |seconds| {
            Workload::new(seconds)
                .provisioned(1_000.0, 100.0)
                .pattern(writes("w", 200.0, Keys::uniform("K#", 100)))
                .simulate()
        };
        assert_eq!(spike(200.0).throttled(), 0);
        let long = spike(600.0);
        let w = long.pattern("w").unwrap();
        assert!(w.throttled > 10_000, "{w:?}");
        // What throttled it is the table's rate, not any partition's limit.
        assert!(long
            .partitions
            .iter()
            .all(|p| p.throttled_by_partition_limit == 0));
    }

    #[test]
    fn adaptive_capacity_lends_a_hot_partition_the_tables_unused_throughput_but_never_over_its_limit(
    ) {
        // 4 partitions share 2,000 WCU: 500 each. One key at 800 writes a second, the rest cold.
        let workload = |adaptive: bool| {
            let w = Workload::new(600.0)
                .provisioned(3_000.0, 2_000.0)
                .pattern(writes("hot", 800.0, Keys::single("HOT")))
                .pattern(writes("cold", 100.0, Keys::uniform("C#", 50)));
            if adaptive {
                w
            } else {
                w.without_adaptive_capacity(4)
            }
        };
        let without = workload(false).simulate();
        assert!(
            without.pattern("hot").unwrap().throttled > 0,
            "its partition's share (500) runs out once its burst is spent: {without}"
        );
        assert_eq!(workload(true).simulate().throttled(), 0);
        // At 1,500 writes a second the key is over the partition limit, adaptive or not.
        let over = Workload::new(60.0)
            .provisioned(3_000.0, 10_000.0)
            .pattern(writes("hot", 1_500.0, Keys::single("HOT")))
            .simulate();
        let hot = over.partition("HOT").unwrap();
        assert!(hot.throttled > 0 && hot.throttled == hot.throttled_by_partition_limit);
    }

    #[test]
    fn an_empty_or_idle_workload_reports_nothing_throttled() {
        let r = Workload::new(10.0)
            .pattern(writes("idle", 0.0, Keys::single("K")))
            .simulate();
        assert_eq!(r.patterns[0].requests, 0);
        assert!(r.partitions.is_empty());
        assert!(format!("{r}").contains("idle"));
    }

    #[test]
    fn a_bucket_refills_at_its_rate_up_to_its_capacity_and_keeps_a_debt() {
        let mut b = Bucket::full(2.0, 1.0, 0.0);
        assert!(b.has(0.0, 2.0));
        b.take(0.0, 3.0);
        assert!(!b.has(0.5, 0.1), "still in debt at -0.5");
        assert!(b.has(1.5, 0.5));
        assert!(b.has(100.0, 2.0));
        assert!(
            b.has(100.0, 5.0),
            "bigger than the bucket: passes when it is full"
        );
        b.take(100.0, 0.5);
        assert!(!b.has(100.0, 2.0));
    }
}
