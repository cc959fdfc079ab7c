//! The monthly cost of the measured patterns at stated request rates.

use std::fmt;

use super::report::{units, Report};
use crate::error::{Error, Result};

/// Hours in a month, as AWS's pricing examples count them (8,760 / 12).
pub const HOURS_PER_MONTH: f64 = 730.0;

/// DynamoDB's throughput prices, in US dollars.
///
/// The defaults ([`Prices::us_east_1`]) are AWS's published prices for US East (N. Virginia),
/// Standard table class, from <https://aws.amazon.com/dynamodb/pricing/on-demand/> and
/// <https://aws.amazon.com/dynamodb/pricing/provisioned/>, as they stand since 1 November 2024
/// (when on-demand throughput prices were halved; these figures were checked against reports
/// of that change, not a dated copy of the pages, so compare them with the pages before
/// relying on them): $0.625 per million write request units, $0.125 per million read request units,
/// $0.00065 per write capacity unit-hour, $0.00013 per read capacity unit-hour. Other regions,
/// the Standard-IA class, reserved capacity and the free tier have other prices: pass them.
///
/// ```
/// use dyno_core::cost::Prices;
///
/// let eu = Prices { on_demand_write_per_million: 0.7625, ..Prices::us_east_1() };
/// assert_eq!(eu.on_demand_read_per_million, 0.125);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prices {
    /// On demand: dollars per million read request units.
    pub on_demand_read_per_million: f64,
    /// On demand: dollars per million write request units.
    pub on_demand_write_per_million: f64,
    /// Provisioned: dollars per read capacity unit and hour.
    pub provisioned_read_per_hour: f64,
    /// Provisioned: dollars per write capacity unit and hour.
    pub provisioned_write_per_hour: f64,
    /// Provisioned: the share of the provisioned capacity the load uses (1.0: capacity equal
    /// to the mean load, the lower bound; auto scaling's default target is 0.7).
    pub provisioned_utilization: f64,
}

impl Prices {
    /// AWS's published us-east-1 prices (see [`Prices`]), provisioned at full utilization.
    pub const fn us_east_1() -> Self {
        Prices {
            on_demand_read_per_million: 0.125,
            on_demand_write_per_million: 0.625,
            provisioned_read_per_hour: 0.00013,
            provisioned_write_per_hour: 0.00065,
            provisioned_utilization: 1.0,
        }
    }
}

impl Default for Prices {
    fn default() -> Self {
        Prices::us_east_1()
    }
}

/// The request rate of each pattern, by its name in the report (calls per second).
///
/// ```
/// use dyno_core::cost::Rates;
///
/// let rates = Rates::new().rate("Order get", 200.0).rate("Order query GSI1", 15.0);
/// # let _ = rates;
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rates {
    rates: Vec<(String, f64)>,
}

impl Rates {
    /// No rate.
    pub fn new() -> Self {
        Rates::default()
    }

    /// Pattern `pattern` is called `per_second` times a second.
    #[must_use]
    pub fn rate(mut self, pattern: impl Into<String>, per_second: f64) -> Self {
        self.rates.push((pattern.into(), per_second));
        self
    }
}

/// One pattern's cost.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CostRow {
    /// The pattern's name.
    pub pattern: String,
    /// Calls per second (as stated).
    pub per_second: f64,
    /// Read units per second: the rate times the measured mean per call.
    pub read_units_per_second: f64,
    /// Write units per second.
    pub write_units_per_second: f64,
    /// Dollars a month on demand.
    pub on_demand_monthly: f64,
    /// Dollars a month provisioned (capacity = load / utilization).
    pub provisioned_monthly: f64,
}

/// The cost of the patterns given a rate.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CostReport {
    /// A row per rated pattern, in the report's order.
    pub rows: Vec<CostRow>,
    /// Patterns measured but given no rate (not priced).
    pub unrated: Vec<String>,
    /// The prices used.
    pub prices: Prices,
}

impl CostReport {
    /// Dollars a month on demand, every rated pattern together.
    pub fn on_demand_monthly(&self) -> f64 {
        self.rows.iter().map(|r| r.on_demand_monthly).sum()
    }

    /// Dollars a month provisioned, every rated pattern together.
    pub fn provisioned_monthly(&self) -> f64 {
        self.rows.iter().map(|r| r.provisioned_monthly).sum()
    }
}

impl Report {
    /// The monthly cost of each pattern `rates` gives a rate, at `prices`: its measured mean
    /// units per call times its rate, for a month of [`HOURS_PER_MONTH`], on demand (request
    /// units) and provisioned (capacity units, sized at the mean load divided by
    /// [`Prices::provisioned_utilization`]).
    ///
    /// A rate that names no pattern of the report, a pattern rated twice, a rate that is
    /// negative or not finite, or a utilization outside (0, 1], is an
    /// [`Error::Configuration`]: a cost computed without it would be silently wrong.
    pub fn cost(&self, rates: &Rates, prices: &Prices) -> Result<CostReport> {
        let fail = |message: String| Error::Configuration {
            message,
            source: None,
        };
        let u = prices.provisioned_utilization;
        if !(u > 0.0 && u <= 1.0) {
            return Err(fail(format!(
                "provisioned utilization {u} is not in (0, 1]"
            )));
        }
        for (i, (name, rate)) in rates.rates.iter().enumerate() {
            if !rate.is_finite() || *rate < 0.0 {
                return Err(fail(format!("rate of {name}: {rate} calls a second")));
            }
            if rates.rates[..i].iter().any(|(n, _)| n == name) {
                return Err(fail(format!("pattern {name} is given two rates")));
            }
            if self.pattern(name).is_none() {
                let known: Vec<&str> = self.patterns.iter().map(|p| p.name.as_str()).collect();
                return Err(fail(format!(
                    "rate of {name}: no such pattern was measured (measured: {})",
                    known.join(", ")
                )));
            }
        }
        let seconds = HOURS_PER_MONTH * 3600.0;
        let mut rows = Vec::new();
        let mut unrated = Vec::new();
        for p in &self.patterns {
            let Some((_, rate)) = rates.rates.iter().find(|(n, _)| *n == p.name) else {
                unrated.push(p.name.clone());
                continue;
            };
            if p.measured_calls() == 0 {
                return Err(fail(format!(
                    "rate of {}: none of its {} calls reported consumed capacity",
                    p.name, p.calls
                )));
            }
            let read = rate * p.mean_read_units();
            let write = rate * p.mean_write_units();
            rows.push(CostRow {
                pattern: p.name.clone(),
                per_second: *rate,
                read_units_per_second: read,
                write_units_per_second: write,
                on_demand_monthly: (read * prices.on_demand_read_per_million
                    + write * prices.on_demand_write_per_million)
                    * seconds
                    / 1e6,
                provisioned_monthly: (read * prices.provisioned_read_per_hour
                    + write * prices.provisioned_write_per_hour)
                    / u
                    * HOURS_PER_MONTH,
            });
        }
        Ok(CostReport {
            rows,
            unrated,
            prices: *prices,
        })
    }
}

impl fmt::Display for CostReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self
            .rows
            .iter()
            .map(|r| r.pattern.len())
            .max()
            .unwrap_or(7)
            .max(7);
        writeln!(
            f,
            "{:<width$} {:>9} {:>9} {:>9} {:>14} {:>14}",
            "pattern", "calls/s", "RU/s", "WU/s", "on-demand $/mo", "provisioned $/mo"
        )?;
        for r in &self.rows {
            writeln!(
                f,
                "{:<width$} {:>9} {:>9} {:>9} {:>14.2} {:>14.2}",
                r.pattern,
                units(r.per_second),
                units(r.read_units_per_second),
                units(r.write_units_per_second),
                r.on_demand_monthly,
                r.provisioned_monthly
            )?;
        }
        writeln!(
            f,
            "{:<width$} {:>9} {:>9} {:>9} {:>14.2} {:>14.2}",
            "total",
            "",
            "",
            "",
            self.on_demand_monthly(),
            self.provisioned_monthly()
        )?;
        if !self.unrated.is_empty() {
            writeln!(f, "not priced (no rate given): {}", self.unrated.join(", "))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::{Operation, PatternReport};

    fn pattern(name: &str, operation: Operation, calls: u64, units: f64) -> PatternReport {
        PatternReport {
            name: name.to_owned(),
            table: "Shop".to_owned(),
            entities: vec!["Order".to_owned()],
            unattributed: false,
            operation,
            index: None,
            query: None,
            calls,
            failed: 1,
            unreported: 0,
            read_units: if operation.is_read() { units } else { 0.0 },
            write_units: if operation.is_read() { 0.0 } else { units },
            max_read_units: 0.0,
            max_write_units: 0.0,
            table_units: units,
            global_indexes: Vec::new(),
            local_indexes: Vec::new(),
            items_read: 0,
            items_returned: 0,
        }
    }

    fn report() -> Report {
        Report {
            // 4 measured gets of 0.5 RU (one more failed), 2 measured puts of 2 WU.
            patterns: vec![
                pattern("Order get", Operation::Get, 5, 2.0),
                pattern("Order put", Operation::Put, 3, 4.0),
                pattern("Order delete", Operation::Delete, 2, 1.0),
            ],
            partitions: Vec::new(),
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn the_monthly_cost_is_the_rate_times_the_mean_units_at_the_stated_prices() {
        let rates = Rates::new()
            .rate("Order get", 100.0)
            .rate("Order put", 10.0);
        let cost = report().cost(&rates, &Prices::default()).unwrap();
        let get = &cost.rows[0];
        // 100 gets/s x 0.5 RU = 50 RU/s; 50 x 2,628,000 s / 1e6 x $0.125 = $16.425;
        // provisioned: 50 RCU x 730 h x $0.00013 = $4.745.
        assert_eq!(get.pattern, "Order get");
        assert!(close(get.read_units_per_second, 50.0));
        assert!(close(get.write_units_per_second, 0.0));
        assert!(
            close(get.on_demand_monthly, 16.425),
            "{}",
            get.on_demand_monthly
        );
        assert!(
            close(get.provisioned_monthly, 4.745),
            "{}",
            get.provisioned_monthly
        );
        let put = &cost.rows[1];
        // 10 puts/s x 2 WU = 20 WU/s; 20 x 2.628 x $0.625 = $32.85; 20 x 730 x $0.00065 = $9.49.
        assert!(close(put.write_units_per_second, 20.0));
        assert!(
            close(put.on_demand_monthly, 32.85),
            "{}",
            put.on_demand_monthly
        );
        assert!(
            close(put.provisioned_monthly, 9.49),
            "{}",
            put.provisioned_monthly
        );
        assert!(close(cost.on_demand_monthly(), 49.275));
        assert!(close(cost.provisioned_monthly(), 14.235));
        assert_eq!(cost.unrated, ["Order delete"]);

        // At auto scaling's 70% target, a third more capacity is provisioned than used.
        let scaled = Prices {
            provisioned_utilization: 0.7,
            ..Prices::default()
        };
        let cost = report().cost(&rates, &scaled).unwrap();
        assert!(close(cost.rows[1].provisioned_monthly, 9.49 / 0.7));
        assert!(close(cost.rows[1].on_demand_monthly, 32.85));
        let shown = cost.to_string();
        assert!(
            shown.contains("Order put") && shown.contains("not priced"),
            "{shown}"
        );
    }

    #[test]
    fn a_rate_the_report_cannot_price_is_an_error_naming_it() {
        let r = report();
        let p = Prices::default();
        let err = r
            .cost(&Rates::new().rate("Order gets", 1.0), &p)
            .unwrap_err();
        assert!(err.to_string().contains("Order gets") && err.to_string().contains("Order get,"));
        let twice = Rates::new().rate("Order get", 1.0).rate("Order get", 2.0);
        assert!(r.cost(&twice, &p).is_err());
        assert!(r.cost(&Rates::new().rate("Order get", -1.0), &p).is_err());
        assert!(r
            .cost(&Rates::new().rate("Order get", f64::NAN), &p)
            .is_err());
        let zero = Prices {
            provisioned_utilization: 0.0,
            ..p
        };
        assert!(r.cost(&Rates::new(), &zero).is_err());
        let mut unmeasured = report();
        unmeasured.patterns[0].failed = 5;
        let err = unmeasured
            .cost(&Rates::new().rate("Order get", 1.0), &p)
            .unwrap_err();
        assert!(err.to_string().contains("none of its 5 calls"), "{err}");
    }
}
