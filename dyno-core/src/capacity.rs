//! Consumed capacity as DynamoDB reports it with `ReturnConsumedCapacity = INDEXES`: in total,
//! and split between a table and each of its secondary indexes.

/// The capacity one request consumed in one table: its capacity units in total and their split
/// between the table and each secondary index the request read or wrote (DynamoDB's
/// `ConsumedCapacity` with `ReturnConsumedCapacity = INDEXES`: `CapacityUnits`, `Table`,
/// `GlobalSecondaryIndexes`, `LocalSecondaryIndexes`).
///
/// ```
/// use dyno_core::store::Capacity;
///
/// // A put that wrote a 1 KB item and its entry in GSI1:
/// let mut put = Capacity::table(1.0);
/// put.add_index("GSI1", false, 1.0);
/// assert_eq!(put.units, 2.0);
/// assert_eq!(put.global_indexes, [("GSI1".to_owned(), 1.0)]);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Capacity {
    /// Capacity units of the table and its indexes together (`CapacityUnits`).
    pub units: f64,
    /// The table's own share (`Table.CapacityUnits`): none for a query of an index.
    pub table: f64,
    /// Each global secondary index's share, in name order. An index the request neither read
    /// nor changed is absent (DynamoDB leaves it out rather than reporting zero).
    pub global_indexes: Vec<(String, f64)>,
    /// Each local secondary index's share, in name order, as for global indexes.
    pub local_indexes: Vec<(String, f64)>,
}

impl Capacity {
    /// `units` consumed by the table alone.
    pub fn table(units: f64) -> Self {
        Capacity {
            units,
            table: units,
            global_indexes: Vec::new(),
            local_indexes: Vec::new(),
        }
    }

    /// Adds `units` consumed by index `name` (local or global).
    pub fn add_index(&mut self, name: &str, local: bool, units: f64) {
        let list = if local {
            &mut self.local_indexes
        } else {
            &mut self.global_indexes
        };
        match list.binary_search_by(|(n, _)| n.as_str().cmp(name)) {
            Ok(i) => list[i].1 += units,
            Err(i) => list.insert(i, (name.to_owned(), units)),
        }
        self.units += units;
    }

    /// Adds what `other` consumed (another action or page on the same table).
    pub fn add(&mut self, other: &Capacity) {
        self.units += other.table;
        self.table += other.table;
        for (name, units) in &other.global_indexes {
            self.add_index(name, false, *units);
        }
        for (name, units) in &other.local_indexes {
            self.add_index(name, true, *units);
        }
    }
}

/// The capacity a request over several tables (a batch, a transaction) consumed in one of them:
/// DynamoDB reports one `ConsumedCapacity` per table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableCapacity {
    /// Table name.
    pub table: String,
    /// What the request consumed in it.
    pub capacity: Capacity,
}

impl TableCapacity {
    /// The capacity units of the whole request: the sum over its tables.
    ///
    /// ```
    /// use dyno_core::store::{Capacity, TableCapacity};
    ///
    /// let tables = [
    ///     TableCapacity { table: "A".into(), capacity: Capacity::table(2.0) },
    ///     TableCapacity { table: "B".into(), capacity: Capacity::table(0.5) },
    /// ];
    /// assert_eq!(TableCapacity::total(&tables), 2.5);
    /// ```
    pub fn total(tables: &[TableCapacity]) -> f64 {
        tables.iter().map(|t| t.capacity.units).sum()
    }

    /// Adds `capacity` consumed in `table` to `tables`, kept in table name order (DynamoDB's).
    pub fn charge(tables: &mut Vec<TableCapacity>, table: &str, capacity: &Capacity) {
        match tables.binary_search_by(|t| t.table.as_str().cmp(table)) {
            Ok(i) => tables[i].capacity.add(capacity),
            Err(i) => tables.insert(
                i,
                TableCapacity {
                    table: table.to_owned(),
                    capacity: capacity.clone(),
                },
            ),
        }
    }
}

/// The read capacity units of reading `bytes` (the whole item, whatever the projection), as
/// DynamoDB charges them: one per 4 KB started (at least one, also for an item that is not
/// there), half of that for an eventually consistent read.
///
/// ```
/// use dyno_core::store::read_units;
///
/// assert_eq!(read_units(20 * 1024, true), 5.0); // a 20 KB item, strongly consistent
/// assert_eq!(read_units(100, false), 0.5);
/// ```
pub fn read_units(bytes: usize, consistent: bool) -> f64 {
    let units = bytes.div_ceil(4096).max(1) as f64;
    if consistent {
        units
    } else {
        units / 2.0
    }
}

/// The write capacity units of writing `bytes` (the larger of the item before and after the
/// write), as DynamoDB charges a standard write: one per 1 KB started, at least one. A
/// transactional write costs twice that.
///
/// ```
/// use dyno_core::store::write_units;
///
/// assert_eq!(write_units(0), 1.0); // a delete of nothing
/// assert_eq!(write_units(1025), 2.0);
/// ```
pub fn write_units(bytes: usize) -> f64 {
    bytes.div_ceil(1024).max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_by_index_name_and_tables_stay_in_name_order() {
        let mut a = Capacity::table(2.0);
        a.add_index("GSI2", false, 1.0);
        a.add_index("LSI1", true, 3.0);
        let mut b = Capacity::table(0.0);
        b.add_index("GSI1", false, 1.0);
        b.add_index("GSI2", false, 2.0);
        a.add(&b);
        assert_eq!(a.units, 9.0);
        assert_eq!(a.table, 2.0);
        assert_eq!(
            a.global_indexes,
            [("GSI1".to_owned(), 1.0), ("GSI2".to_owned(), 3.0)]
        );
        assert_eq!(a.local_indexes, [("LSI1".to_owned(), 3.0)]);

        let mut tables = Vec::new();
        TableCapacity::charge(&mut tables, "B", &Capacity::table(1.0));
        TableCapacity::charge(&mut tables, "A", &Capacity::table(2.0));
        TableCapacity::charge(&mut tables, "B", &b);
        let names: Vec<&str> = tables.iter().map(|t| t.table.as_str()).collect();
        assert_eq!(names, ["A", "B"]);
        assert_eq!(tables[1].capacity.units, 4.0);
        assert_eq!(TableCapacity::total(&tables), 6.0);
    }
}
