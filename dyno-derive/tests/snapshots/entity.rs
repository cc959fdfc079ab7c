// Expansion snapshot: DYNO_UPDATE_SNAPSHOTS=1 cargo test -p dyno-derive
///A typed query on the table (`USER#{user_id}`, `ORDER#{order_id}`) returning `Order`s; built by [`Order::query`]. Run it with `.all(&store)`, `.stream(&store)` or `.page(&store, cursor)`.
#[must_use = "a query does nothing until it is run with `.all(&store)`, `.stream(&store)` or `.page(...)`"]
pub struct OrderQuery<
    const IX: usize = 0,
    State = ::dyno_core::__private::Sk<0>,
    Kind = ::dyno_core::__private::Local,
    Out: ::dyno_core::__private::FromItem = Order,
> {
    query: ::dyno_core::__private::Query<Out>,
    _marker: ::core::marker::PhantomData<fn() -> (State, Kind)>,
}
///A typed query on index `GSI1` (`STATUS#{status}`, `{order_date}`) returning `Order`s; built by [`Order::gsi1`]. Run it with `.all(&store)`, `.stream(&store)` or `.page(&store, cursor)`.
pub type OrderGsi1Query<State = ::dyno_core::__private::Sk<0>, Out = Order> = OrderQuery<
    1usize,
    State,
    ::dyno_core::__private::Global,
    Out,
>;
///A typed update of one `Order`, built by [`Order::update`]; run it with `.send(&store)`.
#[must_use = "an update does nothing until it is sent with `.send(&store)`"]
pub struct OrderUpdate {
    update: ::dyno_core::__private::UpdateBuilder<Order>,
}
#[doc(hidden)]
#[allow(non_upper_case_globals, unused_attributes, unused_qualifications, clippy::all)]
const _: () = {
    use ::dyno_core::__private as __d;
    #[allow(unused_imports)]
    use __d::autoref::*;
    const __ENTITY: &str = "Order";
    const __PK_T: __d::Template = __d::Template::new(
        &[__d::Segment::Literal("USER#"), __d::Segment::Field("user_id")],
    );
    const __SK_T: __d::Template = __d::Template::new(
        &[__d::Segment::Literal("ORDER#"), __d::Segment::Field("order_id")],
    );
    const __PK_NAME: &str = <ECommerce as __d::TableKeys>::PK;
    const __SK_NAME: &str = __d::or_empty(<ECommerce as __d::TableKeys>::SK);
    const __TTL_NAME: &str = __d::or_empty(<ECommerce as __d::TableKeys>::TTL);
    const __I0: __d::TableIndex = ECommerce::GSI1;
    const __I0_PK_T: __d::Template = __d::Template::new(
        &[__d::Segment::Literal("STATUS#"), __d::Segment::Field("status")],
    );
    const __I0_SK_NAME: &str = __I0.sort_key_or_empty();
    const __I0_SK_T: __d::Template = __d::Template::new(
        &[__d::Segment::Field("order_date")],
    );
    const __KEY_SOURCES: &[__d::KeySource] = &[
        __d::KeySource::new(__PK_NAME, __PK_T, 0),
        __d::KeySource::new(__SK_NAME, __SK_T, 0),
        __d::KeySource::new(__I0.partition_key, __I0_PK_T, 0u32),
        __d::KeySource::new(__I0_SK_NAME, __I0_SK_T, 0),
    ];
    const _: () = __d::const_assert(
        <ECommerce as __d::TableKeys>::SK.is_some() == true,
        "`Order` gives `sk = ...` but table `ECommerce` has no sort key: remove `sk`",
    );
    const _: () = __d::const_assert(
        __I0.sort_key.is_some() == true,
        "`Order` gives index `GSI1` an `sk` template but the table's index `GSI1` has no sort key: remove `sk`",
    );
    const _: () = __d::const_assert(
        __I0.local == !true,
        "index `GSI1` is a local index: it shares the table's partition key, so leave out `pk` in `index(GSI1, ...)`",
    );
    const _: () = __d::const_assert(
        <ECommerce as __d::TableKeys>::TTL.is_some(),
        "`expires_at` is `#[dyno(ttl)]` but table `ECommerce` has no TTL attribute: add `ttl = \"ttl\"` to the table's `#[dyno(...)]`",
    );
    const _: () = {
        __d::assert_key_part::<Date>();
        __d::assert_key_part::<String>();
        __d::assert_key_part::<OrderStatus>();
        __d::assert_key_part::<String>();
        __d::assert_version::<u64>();
        __d::assert_ttl::<Option<OffsetDateTime>>();
    };
    #[inline]
    fn __key_pk(__k: &mut __d::String, user_id: &String) -> __d::Result<()> {
        __d::reserve_key(__k, 5usize + (&__d::Part(user_id)).len_hint());
        __k.push_str("USER#");
        (&__d::Part(user_id))
            .write_part(__k, __d::KeyFormat::Plain, &__PK_T, __ENTITY, "user_id")
    }
    #[inline]
    fn __key_sk(__k: &mut __d::String, order_id: &String) -> __d::Result<()> {
        __d::reserve_key(__k, 6usize + (&__d::Part(order_id)).len_hint());
        __k.push_str("ORDER#");
        (&__d::Part(order_id))
            .write_part(__k, __d::KeyFormat::Ordered, &__SK_T, __ENTITY, "order_id")
    }
    #[inline]
    fn __key_i0_pk(__k: &mut __d::String, status: &OrderStatus) -> __d::Result<()> {
        __d::reserve_key(__k, 7usize + (&__d::Part(status)).len_hint());
        __k.push_str("STATUS#");
        (&__d::Part(status))
            .write_part(__k, __d::KeyFormat::Plain, &__I0_PK_T, __ENTITY, "status")
    }
    #[inline]
    fn __key_i0_sk(__k: &mut __d::String, order_date: &Date) -> __d::Result<()> {
        __d::reserve_key(__k, 0usize + (&__d::Part(order_date)).len_hint());
        (&__d::Part(order_date))
            .write_part(__k, __d::KeyFormat::Ordered, &__I0_SK_T, __ENTITY, "order_date")
    }
    #[automatically_derived]
    impl __d::Entity for Order {
        type Table = ECommerce;
        const ENTITY_TYPE: &'static str = __ENTITY;
        const PK: __d::Template = __PK_T;
        const SK: __d::Option<__d::Template> = __d::Some(__SK_T);
        const INDEXES: &'static [__d::IndexTemplate] = &[
            __d::IndexTemplate::new(__I0.name, __I0_PK_T, __d::Some(__I0_SK_T), 0u32),
        ];
        const MAPPED_INDEXES: &'static [&'static str] = &[];
        const VERSION_ATTRIBUTE: __d::Option<&'static str> = __d::Some("version");
        const TTL_ATTRIBUTE: __d::Option<&'static str> = __d::Some(__TTL_NAME);
        const ATTRIBUTES: &'static [&'static str] = &[
            "user_id",
            "order_id",
            "status",
            "order_date",
            "total",
            "note",
            "version",
            __TTL_NAME,
            __I0.partition_key,
            __I0_SK_NAME,
        ];
        const MODEL: __d::EntityParts = __d::EntityParts {
            fields: &[
                ("user_id", "user_id", "String", __d::FieldRole::Plain, true),
                ("order_id", "order_id", "String", __d::FieldRole::Plain, true),
                ("status", "status", "OrderStatus", __d::FieldRole::Plain, true),
                ("order_date", "order_date", "Date", __d::FieldRole::Plain, true),
                ("total", "total", "Decimal", __d::FieldRole::Plain, false),
                ("note", "note", "Option<String>", __d::FieldRole::Plain, false),
                ("version", "version", "u64", __d::FieldRole::Version, false),
                (
                    "expires_at",
                    __TTL_NAME,
                    "Option<OffsetDateTime>",
                    __d::FieldRole::Ttl,
                    false,
                ),
            ],
            queries: &[("GSI1", "gsi1", false)],
            mapped: &[],
        };
        fn key(&self) -> __d::Result<__d::Item> {
            let mut __item = __d::Item::with_capacity(2);
            __key_pk(__d::key_buf(&mut __item, __PK_NAME), &self.user_id)?;
            __key_sk(__d::key_buf(&mut __item, __SK_NAME), &self.order_id)?;
            __d::Ok(__item)
        }
        fn to_item(&self) -> __d::Result<__d::Item> {
            let mut __item = __d::Item::with_capacity(13usize);
            __d::put_attr(&mut __item, __ENTITY, "user_id", &self.user_id)?;
            __d::put_attr(&mut __item, __ENTITY, "order_id", &self.order_id)?;
            __d::put_attr(&mut __item, __ENTITY, "status", &self.status)?;
            __d::put_attr(&mut __item, __ENTITY, "order_date", &self.order_date)?;
            __d::put_attr(&mut __item, __ENTITY, "total", &self.total)?;
            __d::put_attr(&mut __item, __ENTITY, "note", &self.note)?;
            __d::put_attr(&mut __item, __ENTITY, "version", &self.version)?;
            (&__d::Ttl::<Option<OffsetDateTime>>::new())
                .put(&mut __item, __ENTITY, __TTL_NAME, &self.expires_at)?;
            __key_pk(__d::key_buf(&mut __item, __PK_NAME), &self.user_id)?;
            __key_sk(__d::key_buf(&mut __item, __SK_NAME), &self.order_id)?;
            {
                __key_i0_pk(
                    __d::key_buf(&mut __item, __I0.partition_key),
                    &self.status,
                )?;
                __key_i0_sk(__d::key_buf(&mut __item, __I0_SK_NAME), &self.order_date)?;
            }
            __item
                .insert(
                    __d::String::from(<ECommerce as __d::Table>::ENTITY_ATTRIBUTE),
                    __d::AttributeValue::S(__d::String::from(__ENTITY)),
                );
            __d::Ok(__item)
        }
        fn from_item(item: &__d::Item) -> __d::Result<Self> {
            let mut __v: [__d::Option<&__d::AttributeValue>; 8usize] = [__d::None; 8usize];
            let mut __keys = __d::StoredKeys::new([
                __PK_NAME,
                __SK_NAME,
                __I0.partition_key,
                __I0_SK_NAME,
            ]);
            for (__name, __value) in item {
                if __name.as_str() == __TTL_NAME {
                    __v[7] = __d::Some(__value);
                }
                match __name.as_str() {
                    "user_id" => {
                        __v[0] = __d::Some(__value);
                    }
                    "order_id" => {
                        __v[1] = __d::Some(__value);
                    }
                    "status" => {
                        __v[2] = __d::Some(__value);
                    }
                    "order_date" => {
                        __v[3] = __d::Some(__value);
                    }
                    "total" => {
                        __v[4] = __d::Some(__value);
                    }
                    "note" => {
                        __v[5] = __d::Some(__value);
                    }
                    "version" => {
                        __v[6] = __d::Some(__value);
                    }
                    _ => __keys.offer(__name, __value),
                }
            }
            fn __rebuild(
                __e: &Order,
                __i: ::core::primitive::usize,
                __k: &mut __d::String,
            ) -> __d::Result<()> {
                match __i {
                    0 => __key_pk(__k, &__e.user_id),
                    1 => __key_sk(__k, &__e.order_id),
                    2 => __key_i0_pk(__k, &__e.status),
                    3 => __key_i0_sk(__k, &__e.order_date),
                    _ => __d::Ok(()),
                }
            }
            __d::at_stored_key(
                item,
                &__keys,
                Order {
                    user_id: __d::key_field_attr_at::<
                        String,
                    >(
                        __v[0],
                        item,
                        __ENTITY,
                        "user_id",
                        "user_id",
                        __KEY_SOURCES,
                        (&__d::Recover::<String>::new()).recover_fn(),
                    )?,
                    order_id: __d::key_field_attr_at::<
                        String,
                    >(
                        __v[1],
                        item,
                        __ENTITY,
                        "order_id",
                        "order_id",
                        __KEY_SOURCES,
                        (&__d::Recover::<String>::new()).recover_fn(),
                    )?,
                    status: __d::key_field_attr_at::<
                        OrderStatus,
                    >(
                        __v[2],
                        item,
                        __ENTITY,
                        "status",
                        "status",
                        __KEY_SOURCES,
                        (&__d::Recover::<OrderStatus>::new()).recover_fn(),
                    )?,
                    order_date: __d::key_field_attr_at::<
                        Date,
                    >(
                        __v[3],
                        item,
                        __ENTITY,
                        "order_date",
                        "order_date",
                        __KEY_SOURCES,
                        (&__d::Recover::<Date>::new()).recover_fn(),
                    )?,
                    total: __d::attr_in::<Decimal>(__v[4], __ENTITY, "total")?,
                    note: __d::attr_in::<Option<String>>(__v[5], __ENTITY, "note")?,
                    version: __d::attr_or_default_in::<
                        u64,
                    >(__v[6], __ENTITY, "version")?,
                    expires_at: (&__d::Ttl::<Option<OffsetDateTime>>::new())
                        .get_in(__v[7], __ENTITY, __TTL_NAME)?,
                },
                __rebuild,
            )
        }
        fn version(&self) -> __d::Option<u64> {
            __d::Some((&__d::Ver::<u64>::new()).get(&self.version))
        }
        fn set_version(&mut self, version: u64) {
            (&__d::Ver::<u64>::new()).set(&mut self.version, version)
        }
    }
    #[automatically_derived]
    impl __d::EntityMeta for Order {
        const KEY_SOURCES: &'static [__d::KeySource] = __KEY_SOURCES;
    }
    #[automatically_derived]
    impl __d::ProjectionOf<Order> for Order {}
    __d::partition_key_of!(
        Order, 0, [A0 : __d::FieldValue < String >], A0, user_id, __d::key_from:: <
        String, _ > (user_id, __key_pk)
    );
    __d::partition_key_of!(
        Order, 1672353327546953593, [A0 : __d::FieldValue < OrderStatus >], A0, status,
        __d::key_from:: < OrderStatus, _ > (status, __key_i0_pk)
    );
    #[automatically_derived]
    impl Order {
        ///Field `user_id` (attribute `user_id`), for typed conditions and filters.
        pub const USER_ID: __d::Field<Order, String> = __d::Field::new("user_id");
        ///Field `order_id` (attribute `order_id`), for typed conditions and filters.
        pub const ORDER_ID: __d::Field<Order, String> = __d::Field::new("order_id");
        ///Field `status` (attribute `status`), for typed conditions and filters.
        pub const STATUS: __d::Field<Order, OrderStatus> = __d::Field::new("status");
        ///Field `order_date` (attribute `order_date`), for typed conditions and filters.
        pub const ORDER_DATE: __d::Field<Order, Date> = __d::Field::new("order_date");
        ///Field `total` (attribute `total`), for typed conditions and filters.
        pub const TOTAL: __d::Field<Order, Decimal> = __d::Field::new("total");
        ///Field `note` (attribute `note`), for typed conditions and filters.
        pub const NOTE: __d::Field<Order, Option<String>> = __d::Field::new("note");
        ///Field `version` (attribute `version`), for typed conditions and filters.
        pub const VERSION: __d::Field<Order, u64> = __d::Field::new("version");
        ///The primary key of the `Order` with these key fields (`USER#{user_id}`, `ORDER#{order_id}`).
        /// An invalid value (an empty string) fails every request using it; see [`Self::try_key`].
        pub fn key(
            user_id: impl __d::FieldValue<String>,
            order_id: impl __d::FieldValue<String>,
        ) -> __d::Key<Order> {
            __d::key_or_invalid(Self::try_key(user_id, order_id))
        }
        /// The primary key, or the error encoding its fields.
        pub fn try_key(
            user_id: impl __d::FieldValue<String>,
            order_id: impl __d::FieldValue<String>,
        ) -> __d::Result<__d::Key<Order>> {
            __d::primary_key(
                __PK_NAME,
                __d::key_from::<String, _>(user_id, __key_pk),
                __SK_NAME,
                __d::Some(__d::key_from::<String, _>(order_id, __key_sk)),
            )
        }
        /// Decodes an item (`Entity::from_item`, sparing the choice with `FromItem::from_item`).
        pub fn from_item(item: &__d::Item) -> __d::Result<Self> {
            <Self as __d::Entity>::from_item(item)
        }
    }
    #[automatically_derived]
    impl<
        State,
        Kind,
        Out: __d::FromItem + __d::FilterBy<Order>,
    > OrderQuery<0usize, State, Kind, Out> {
        ///Conditions on `order_id`, the last part of the sort key `ORDER#{order_id}`: `.order_id().eq(v)`, `lt`, `le`, `gt`, `ge`, `between`, `begins_with`.
        pub fn order_id(self) -> __d::SortKeyPart<Self, String, __d::SkDone>
        where
            State: __d::NoSortCondition,
        {
            __d::SortKeyPart::new(
                self.query,
                (&__d::Recover::<String>::new()).segment_fn(),
                __d::KeyFormat::Ordered,
                __ENTITY,
                "order_id",
                "",
                true,
            )
        }
    }
    #[automatically_derived]
    impl<
        State,
        Kind,
        Out: __d::FromItem + __d::FilterBy<Order>,
    > OrderQuery<1usize, State, Kind, Out> {
        ///Conditions on `order_date`, the last part of the sort key of index `GSI1` `{order_date}`: `.order_date().eq(v)`, `lt`, `le`, `gt`, `ge`, `between`, `begins_with`.
        pub fn order_date(self) -> __d::SortKeyPart<Self, Date, __d::SkDone>
        where
            State: __d::NoSortCondition,
        {
            __d::SortKeyPart::new(
                self.query,
                (&__d::Recover::<Date>::new()).segment_fn(),
                __d::KeyFormat::Ordered,
                __ENTITY,
                "order_date",
                "",
                true,
            )
        }
    }
    #[automatically_derived]
    impl Order {
        ///Queries the table (`USER#{user_id}`, `ORDER#{order_id}`) of `Order`: the partition fields are the arguments; sort-key conditions are methods of the result.
        pub fn query(user_id: impl __d::FieldValue<String>) -> OrderQuery {
            <OrderQuery as __d::QueryDsl>::from_query(
                __d::Query::of::<
                    Order,
                >(__d::None, __d::key_from::<String, _>(user_id, __key_pk)),
            )
        }
        ///Queries index `GSI1` (`STATUS#{status}`, `{order_date}`) of `Order`: the partition fields are the arguments; sort-key conditions are methods of the result.
        pub fn gsi1(status: impl __d::FieldValue<OrderStatus>) -> OrderGsi1Query {
            <OrderGsi1Query as __d::QueryDsl>::from_query(
                __d::Query::of::<
                    Order,
                >(
                    __d::Some(__I0.name),
                    __d::key_from::<OrderStatus, _>(status, __key_i0_pk),
                ),
            )
        }
    }
    #[automatically_derived]
    impl<
        const IX: usize,
        State,
        Kind,
        Out: __d::FromItem + __d::FilterBy<Order>,
    > __d::QueryDsl for OrderQuery<IX, State, Kind, Out> {
        type Entity = Order;
        type Out = Out;
        type Kind = Kind;
        type In<S2> = OrderQuery<IX, S2, Kind, Out>;
        fn from_query(query: __d::Query<Out>) -> Self {
            OrderQuery {
                query,
                _marker: ::core::marker::PhantomData,
            }
        }
        fn as_query(&self) -> &__d::Query<Out> {
            &self.query
        }
        fn into_inner(self) -> __d::Query<Out> {
            self.query
        }
    }
    #[automatically_derived]
    impl<
        const IX: usize,
        State,
        Kind,
        Out: __d::FromItem,
    > OrderQuery<IX, State, Kind, Out> {
        /// Reads only the attributes of projection `P2` (a `#[derive(Projection)]`) into `P2`s.
        pub fn project<P2: __d::FromItem + __d::ProjectionOf<Order>>(
            self,
        ) -> OrderQuery<IX, State, Kind, P2> {
            OrderQuery {
                query: self.query.project(),
                _marker: ::core::marker::PhantomData,
            }
        }
    }
    #[automatically_derived]
    impl<const IX: usize, State, Kind, Out: __d::FromItem> ::core::fmt::Debug
    for OrderQuery<IX, State, Kind, Out> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            f.debug_struct("OrderQuery")
                .field("index", &IX)
                .field("query", &self.query)
                .finish()
        }
    }
    #[automatically_derived]
    impl Order {
        /// Starts a typed update of the item with primary key `key`.
        pub fn update(key: __d::Key<Order>) -> OrderUpdate {
            OrderUpdate {
                update: __d::UpdateBuilder::new(key),
            }
        }
        ///Starts an upsert of the `Order` at `key` that creates a readable item: the arguments are every field a created item needs (`status`, `order_date`, `total`), written where absent (`if_not_exists`), with the index keys made of them; an existing item keeps its own values and keys. Add the update's other actions with its setters, and send it.
        pub fn upsert(
            key: __d::Key<Order>,
            status: impl __d::FieldValue<OrderStatus>,
            order_date: impl __d::FieldValue<Date>,
            total: impl __d::FieldValue<Decimal>,
        ) -> OrderUpdate {
            #[allow(unused_mut)]
            let mut __update = __d::UpdateDsl::upsert(Order::update(key));
            __update
                .update
                .set_if_absent_value("total", __d::encode_value::<Decimal, _>(total));
            let r = __d::with_key_value(
                &mut __update,
                [__d::KeyField::IfAbsent],
                status,
                __dyno_key_status,
            );
            __update.update.record(r);
            let r = __d::with_key_value(
                &mut __update,
                [__d::KeyField::IfAbsent],
                order_date,
                __dyno_key_order_date,
            );
            __update.update.record(r);
            __update
        }
    }
    #[automatically_derived]
    impl ::core::fmt::Debug for OrderUpdate {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            f.debug_struct("OrderUpdate").field("update", &self.update).finish()
        }
    }
    fn __dyno_key_status(
        __update: &mut OrderUpdate,
        __modes: [__d::KeyField; 1],
        status: &OrderStatus,
    ) -> __d::Result<()> {
        __d::rebuild_key_field(
            &mut __update.update,
            __modes[0usize],
            "status",
            "status",
            __d::ToAttribute::to_attribute(status),
            &[__I0.partition_key],
        );
        let mut __item = __d::Item::new();
        {
            __key_i0_pk(__d::key_buf(&mut __item, __I0.partition_key), status)?;
        }
        __d::set_index_keys(&mut __update.update, __item, &[], &__modes)
    }
    fn __dyno_key_order_date(
        __update: &mut OrderUpdate,
        __modes: [__d::KeyField; 1],
        order_date: &Date,
    ) -> __d::Result<()> {
        __d::rebuild_key_field(
            &mut __update.update,
            __modes[0usize],
            "order_date",
            "order_date",
            __d::ToAttribute::to_attribute(order_date),
            &[__I0_SK_NAME],
        );
        let mut __item = __d::Item::new();
        {
            __key_i0_sk(__d::key_buf(&mut __item, __I0_SK_NAME), order_date)?;
        }
        __d::set_index_keys(&mut __update.update, __item, &[], &__modes)
    }
    /// Not implemented by any type: see the method using it.
    #[diagnostic::on_unimplemented(
        message = "`user_id` is part of the primary key of `Order`; delete and re-create the item",
        label = "a primary-key field cannot be updated",
        note = "a key never changes: delete the item (`Order::delete(key)`) and create it with the new `user_id`"
    )]
    pub trait __OrderUpdateUserId {}
    #[automatically_derived]
    impl OrderUpdate {
        #[doc(hidden)]
        pub fn set_user_id<V: __OrderUpdateUserId>(self, _value: V) -> Self {
            self
        }
    }
    /// Not implemented by any type: see the method using it.
    #[diagnostic::on_unimplemented(
        message = "`order_id` is part of the primary key of `Order`; delete and re-create the item",
        label = "a primary-key field cannot be updated",
        note = "a key never changes: delete the item (`Order::delete(key)`) and create it with the new `order_id`"
    )]
    pub trait __OrderUpdateOrderId {}
    #[automatically_derived]
    impl OrderUpdate {
        #[doc(hidden)]
        pub fn set_order_id<V: __OrderUpdateOrderId>(self, _value: V) -> Self {
            self
        }
    }
    #[automatically_derived]
    impl OrderUpdate {
        ///Sets `status` and rewrites the keys of index GSI1 in the same request.
        pub fn set_status(mut self, status: impl __d::FieldValue<OrderStatus>) -> Self {
            let r = __d::with_key_value(
                &mut self,
                [__d::KeyField::Write],
                status,
                __dyno_key_status,
            );
            self.update.record(r);
            self
        }
        ///Sets `order_date` and rewrites the keys of index GSI1 in the same request.
        pub fn set_order_date(mut self, order_date: impl __d::FieldValue<Date>) -> Self {
            let r = __d::with_key_value(
                &mut self,
                [__d::KeyField::Write],
                order_date,
                __dyno_key_order_date,
            );
            self.update.record(r);
            self
        }
        ///Sets `total`.
        pub fn set_total(mut self, value: impl __d::FieldValue<Decimal>) -> Self {
            self.update.set_value("total", __d::encode_value::<Decimal, _>(value));
            self
        }
        ///Sets `total` unless the item has it already (`if_not_exists`).
        pub fn set_if_absent_total(
            mut self,
            value: impl __d::FieldValue<Decimal>,
        ) -> Self {
            self.update
                .set_if_absent_value("total", __d::encode_value::<Decimal, _>(value));
            self
        }
        ///Adds `n` to `total` (an absent value counts as 0), atomically; a result outside the field's type is `Error::OutOfRange` and writes nothing.
        pub fn add_total(mut self, n: impl __d::FieldValue<Decimal>) -> Self {
            self.update.add_number::<Decimal>("total", n);
            self
        }
        ///Subtracts `n` from `total` (an absent value counts as 0), atomically; a result outside the field's type is `Error::OutOfRange` and writes nothing.
        pub fn subtract_total(mut self, n: impl __d::FieldValue<Decimal>) -> Self {
            self.update.subtract_number::<Decimal>("total", n);
            self
        }
        ///Sets `note` (`None` removes it).
        pub fn set_note(mut self, value: impl __d::FieldValue<Option<String>>) -> Self {
            self.update.set_value("note", __d::encode_value::<Option<String>, _>(value));
            self
        }
        ///Removes `note` (sets it to `None`).
        pub fn remove_note(mut self) -> Self {
            self.update.remove_attr("note");
            self
        }
        ///Sets `note` unless the item has it already (`if_not_exists`).
        pub fn set_if_absent_note(
            mut self,
            value: impl __d::FieldValue<Option<String>>,
        ) -> Self {
            self.update
                .set_if_absent_value(
                    "note",
                    __d::encode_value::<Option<String>, _>(value),
                );
            self
        }
        ///Sets `expires_at` (`None` removes it).
        pub fn set_expires_at(
            mut self,
            value: impl __d::FieldValue<Option<OffsetDateTime>>,
        ) -> Self {
            self.update
                .set_value(
                    __TTL_NAME,
                    __d::FieldValue::<
                        Option<OffsetDateTime>,
                    >::with_value(
                        value,
                        |v| (&__d::Ttl::<Option<OffsetDateTime>>::new()).value(v),
                    ),
                );
            self
        }
        ///Removes `expires_at` (sets it to `None`).
        pub fn remove_expires_at(mut self) -> Self {
            self.update.remove_attr(__TTL_NAME);
            self
        }
    }
    #[automatically_derived]
    impl __d::Versioned for Order {}
    #[automatically_derived]
    impl __d::UpdateDsl for OrderUpdate {
        type Entity = Order;
        fn map_update(
            self,
            f: impl ::core::ops::FnOnce(
                __d::UpdateBuilder<Order>,
            ) -> __d::UpdateBuilder<Order>,
        ) -> Self {
            OrderUpdate {
                update: f(self.update),
            }
        }
        fn into_inner(self) -> __d::UpdateBuilder<Order> {
            self.update
        }
        fn prepare_upsert(mut self) -> Self {
            const __NEEDS: &[__d::IndexKeyNeed] = &[
                __d::IndexKeyNeed::new(
                    __I0.partition_key,
                    __I0.name,
                    "partition",
                    "STATUS#{status}",
                    &["status"],
                ),
                __d::IndexKeyNeed::new(
                    __I0_SK_NAME,
                    __I0.name,
                    "sort",
                    "{order_date}",
                    &["order_date"],
                ),
            ];
            __d::prepare_upsert(
                &mut self.update,
                &__d::UpsertPlan {
                    entity: __ENTITY,
                    sources: __KEY_SOURCES,
                    needs: __NEEDS,
                    primary: &[
                        (
                            "user_id",
                            "user_id",
                            (&__d::Recover::<String>::new()).recover_attr_fn(),
                        ),
                        (
                            "order_id",
                            "order_id",
                            (&__d::Recover::<String>::new()).recover_attr_fn(),
                        ),
                    ],
                    fields: &[
                        ("status", "status", __d::decodes_absent::<OrderStatus>),
                        ("order_date", "order_date", __d::decodes_absent::<Date>),
                        ("total", "total", __d::decodes_absent::<Decimal>),
                    ],
                },
            );
            self
        }
    }
    ECommerce!(Order["GSI1"]);
};
