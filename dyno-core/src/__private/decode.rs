//! The one pass of a derived `from_item` over the item: compiled once here, driven by the
//! entity's attribute names, instead of a `match` generated per entity.

use crate::value::{AttributeValue, Item};

/// Puts each attribute of `item` into the slot of every field reading it (`fields[i]` is the
/// attribute of `slots[i]`; fields sharing an attribute all get it) and, when no field reads
/// it, into the slot of the key attribute of that name (`keys[i]` for `key_values[i]`), so the
/// key check needs no hash lookup per key. `#[inline]`: in the entity's `from_item` the names are
/// constants, which the optimizer compares as it would a `match` (the `codec` benchmark).
#[inline]
pub fn read_item<'a>(
    item: &'a Item,
    fields: &[&str],
    slots: &mut [Option<&'a AttributeValue>],
    keys: &[&str],
    key_values: &mut [Option<&'a AttributeValue>],
) {
    for (name, value) in item {
        let name = name.as_str();
        let mut read = false;
        for (field, slot) in fields.iter().zip(slots.iter_mut()) {
            if *field == name {
                *slot = Some(value);
                read = true;
            }
        }
        if !read {
            for (key, slot) in keys.iter().zip(key_values.iter_mut()) {
                if *key == name {
                    *slot = Some(value);
                }
            }
        }
    }
}
