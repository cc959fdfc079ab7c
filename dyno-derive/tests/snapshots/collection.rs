// Expansion snapshot: DYNO_UPDATE_SNAPSHOTS=1 cargo test -p dyno-derive
#[doc(hidden)]
#[allow(non_camel_case_types, missing_debug_implementations)]
pub enum __DynoUserWithOrdersItem {
    F0(User),
    F1(Order),
}
///A query reading one partition into a `UserWithOrders`; built by [`UserWithOrders::query`], run by `.all(&store)` (or `.page`, `.pages`).
#[must_use = "a query does nothing until it is run with `.all(&store)`, `.page` or `.pages`"]
pub struct UserWithOrdersQuery {
    query: ::dyno_core::__private::Query<__DynoUserWithOrdersItem>,
}
#[doc(hidden)]
#[allow(non_upper_case_globals, unused_attributes, unused_qualifications, clippy::all)]
const _: () = {
    const _: () = ::dyno_core::__private::const_assert(
        ::dyno_core::__private::in_index::<User>(::core::option::Option::None)
            || ::dyno_core::__private::in_mapped_index::<
                User,
            >(::core::option::Option::None),
        "`User` has no key in the table, which this collection reads: give it one, or leave it out of the collection",
    );
    const _: () = ::dyno_core::__private::const_assert(
        ::dyno_core::__private::in_index::<Order>(::core::option::Option::None)
            || ::dyno_core::__private::in_mapped_index::<
                Order,
            >(::core::option::Option::None),
        "`Order` has no key in the table, which this collection reads: give it one, or leave it out of the collection",
    );
    const _: fn() = ::dyno_core::__private::assert_same_table::<User, Order>;
    const _: () = ::dyno_core::__private::const_assert(
        !::dyno_core::__private::in_index::<Order>(::core::option::Option::None)
            || ::dyno_core::__private::same_partition::<
                User,
                Order,
            >(::core::option::Option::None),
        "`Order` does not share `User`'s partition in the table: their partition key templates differ, so one query cannot read both",
    );
    const _: () = ::dyno_core::__private::const_assert(
        !(::dyno_core::__private::in_index::<Order>(::core::option::Option::None)
            || ::dyno_core::__private::in_mapped_index::<
                Order,
            >(::core::option::Option::None))
            || ::dyno_core::__private::in_mapped_index::<
                Order,
            >(::core::option::Option::None)
                == ::dyno_core::__private::in_mapped_index::<
                    User,
                >(::core::option::Option::None),
        "`Order` and `User` key the table differently (one maps fields onto its attributes, the other writes templates), so one query cannot read both",
    );
    #[automatically_derived]
    impl ::dyno_core::__private::DescribeCollection for UserWithOrders {
        fn describe() -> ::dyno_core::__private::CollectionModel {
            ::dyno_core::__private::collection_model(
                "UserWithOrders",
                "query",
                ::core::option::Option::None,
                <User as ::dyno_core::__private::Entity>::ENTITY_TYPE,
                &[
                    <User as ::dyno_core::__private::Entity>::ENTITY_TYPE,
                    <Order as ::dyno_core::__private::Entity>::ENTITY_TYPE,
                ],
            )
        }
    }
    #[automatically_derived]
    impl ::dyno_core::__private::FromItem for __DynoUserWithOrdersItem {
        fn accepts(item: &::dyno_core::__private::Item) -> bool {
            <User as ::dyno_core::__private::FromItem>::accepts(item)
                || <Order as ::dyno_core::__private::FromItem>::accepts(item)
        }
        fn ttl_attribute() -> ::core::option::Option<&'static str> {
            <User as ::dyno_core::__private::FromItem>::ttl_attribute()
        }
        fn from_item(
            item: &::dyno_core::__private::Item,
        ) -> ::dyno_core::__private::Result<Self> {
            if <User as ::dyno_core::__private::FromItem>::accepts(item) {
                return <User as ::dyno_core::__private::FromItem>::from_item(item)
                    .map(__DynoUserWithOrdersItem::F0);
            }
            if <Order as ::dyno_core::__private::FromItem>::accepts(item) {
                return <Order as ::dyno_core::__private::FromItem>::from_item(item)
                    .map(__DynoUserWithOrdersItem::F1);
            }
            ::core::result::Result::Err(
                ::dyno_core::__private::Error::decode(
                    "an item of one of User, Order",
                    ::dyno_core::__private::describe_item_type::<User>(item),
                ),
            )
        }
    }
    #[automatically_derived]
    impl ::dyno_core::__private::FilterBy<User> for __DynoUserWithOrdersItem {}
    impl ::dyno_core::__private::CollectionMember<User> for __DynoUserWithOrdersItem {}
    #[automatically_derived]
    impl ::dyno_core::__private::FilterBy<Order> for __DynoUserWithOrdersItem {}
    impl ::dyno_core::__private::CollectionMember<Order> for __DynoUserWithOrdersItem {}
    #[automatically_derived]
    impl UserWithOrders {
        ///Queries one partition of the table (the arguments are the partition key fields of `User` there, a tuple when there are several) and returns every member in it, reading only the range of sort keys the members' templates can have. On a multi-attribute index, whose members map fields onto its attributes, start from a member's typed query instead: `User::<index>(..).collection::<UserWithOrders>()`.
        pub fn query<A>(partition: A) -> UserWithOrdersQuery
        where
            User: ::dyno_core::__private::PartitionKeyOf<A, 0>,
        {
            let query = ::dyno_core::__private::Query::collection::<
                User,
            >(
                ::core::option::Option::None,
                <User as ::dyno_core::__private::PartitionKeyOf<
                    A,
                    0,
                >>::partition_key(partition),
                &[
                    ::dyno_core::__private::sort_template::<
                        User,
                    >(::core::option::Option::None)
                        .flatten(),
                    ::dyno_core::__private::sort_template::<
                        Order,
                    >(::core::option::Option::None)
                        .flatten(),
                ],
            );
            UserWithOrdersQuery { query }
        }
    }
    #[automatically_derived]
    impl ::core::fmt::Debug for UserWithOrdersQuery {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            f.debug_struct("UserWithOrdersQuery").field("query", &self.query).finish()
        }
    }
    #[automatically_derived]
    impl UserWithOrdersQuery {
        /// Keeps only items matching `condition`, built from one entity's fields. It
        /// applies to every item read, whatever its entity: a condition on one
        /// member's field removes the items of members without that attribute
        /// (`filter_member` filters one member and leaves the others alone).
        pub fn filter<E>(self, condition: ::dyno_core::__private::Cond<E>) -> Self
        where
            __DynoUserWithOrdersItem: ::dyno_core::__private::FilterBy<E>,
        {
            UserWithOrdersQuery {
                query: self.query.filter(condition),
            }
        }
        /// Keeps only the items of member `E` matching `condition`, and every item of
        /// the other members (sent as "not `E`, or the condition").
        pub fn filter_member<E>(self, condition: ::dyno_core::__private::Cond<E>) -> Self
        where
            E: ::dyno_core::__private::Entity,
            __DynoUserWithOrdersItem: ::dyno_core::__private::CollectionMember<E>,
        {
            UserWithOrdersQuery {
                query: self.query.filter_member(condition),
            }
        }
        /// Strongly consistent read.
        pub fn consistent(self) -> Self {
            UserWithOrdersQuery {
                query: self.query.consistent(),
            }
        }
        /// Asks the store for at most `n` items per page.
        pub fn page_size(self, n: u32) -> Self {
            UserWithOrdersQuery {
                query: self.query.page_size(n),
            }
        }
        /// Returns items in descending sort-key order.
        pub fn descending(self) -> Self {
            UserWithOrdersQuery {
                query: self.query.descending(),
            }
        }
        /// Reads at most `n` items in total.
        pub fn limit(self, n: usize) -> Self {
            UserWithOrdersQuery {
                query: self.query.limit(n),
            }
        }
        /// Reads only the items of member `E` (a sub-collection): by `E`'s sort-key
        /// prefix where it has one, and always by entity type in the store, so that
        /// `limit` and pages count `E`'s items only.
        pub fn only<E>(self) -> Self
        where
            E: ::dyno_core::__private::Entity,
            __DynoUserWithOrdersItem: ::dyno_core::__private::CollectionMember<E>,
        {
            UserWithOrdersQuery {
                query: self.query.only::<E>(),
            }
        }
        /// The untyped query this reads, or the first error met building it.
        pub fn into_query(
            self,
        ) -> ::dyno_core::__private::Result<
            ::dyno_core::__private::Query<__DynoUserWithOrdersItem>,
        > {
            self.query.check()
        }
        fn group(
            items: ::std::vec::Vec<__DynoUserWithOrdersItem>,
        ) -> ::dyno_core::__private::Result<UserWithOrders> {
            let mut out = UserWithOrders {
                user: ::core::option::Option::None,
                orders: ::std::vec::Vec::new(),
            };
            for item in items {
                match item {
                    __DynoUserWithOrdersItem::F0(x) => {
                        if out.user.is_some() {
                            return ::core::result::Result::Err(
                                ::dyno_core::__private::Error::validation(
                                    "the partition holds several `User` items but `UserWithOrders.user` is an `Option`: make it a `Vec`",
                                ),
                            );
                        }
                        out.user = ::core::option::Option::Some(x);
                    }
                    __DynoUserWithOrdersItem::F1(x) => out.orders.push(x),
                }
            }
            ::core::result::Result::Ok(out)
        }
        /// Reads the partition's members (all pages) and groups them.
        pub async fn all<St: ::dyno_core::__private::Store + ?::core::marker::Sized>(
            self,
            store: &St,
        ) -> ::dyno_core::__private::Result<UserWithOrders> {
            Self::group(self.query.all(store).await?)
        }
        /// Reads the partition's members (all pages) and groups them: the old name
        /// of [`all`](Self::all).
        #[deprecated(note = "renamed `all`, as on every read builder")]
        pub async fn get<St: ::dyno_core::__private::Store + ?::core::marker::Sized>(
            self,
            store: &St,
        ) -> ::dyno_core::__private::Result<UserWithOrders> {
            self.all(store).await
        }
        /// One page, starting at `cursor` (`None`: the first page), grouped, and the cursor
        /// of the next page (`None` after the last); the cursor resumes this query only.
        pub async fn page<St: ::dyno_core::__private::Store + ?::core::marker::Sized>(
            &self,
            store: &St,
            cursor: ::core::option::Option<&::dyno_core::__private::Cursor>,
        ) -> ::dyno_core::__private::Result<
            (UserWithOrders, ::core::option::Option<::dyno_core::__private::Cursor>),
        > {
            let page = self.query.page(store, cursor).await?;
            ::core::result::Result::Ok((Self::group(page.items)?, page.cursor))
        }
        /// The pages as a stream, each grouped, read as it is polled.
        pub fn pages<'s, St: ::dyno_core::__private::Store + ?::core::marker::Sized>(
            self,
            store: &'s St,
        ) -> impl ::dyno_core::__private::Stream<
            Item = ::dyno_core::__private::Result<UserWithOrders>,
        > + ::core::marker::Send + 's {
            ::dyno_core::__private::stream_map(self.query.pages(store), Self::group)
        }
        /// The pages as a stream, each grouped: the old name of
        /// [`pages`](Self::pages) (`stream` yields items on every other read builder).
        #[deprecated(
            note = "renamed `pages`: `stream` yields items on every other read builder"
        )]
        pub fn stream<'s, St: ::dyno_core::__private::Store + ?::core::marker::Sized>(
            self,
            store: &'s St,
        ) -> impl ::dyno_core::__private::Stream<
            Item = ::dyno_core::__private::Result<UserWithOrders>,
        > + ::core::marker::Send + 's {
            self.pages(store)
        }
    }
};
