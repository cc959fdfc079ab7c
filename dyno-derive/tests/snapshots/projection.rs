// Expansion snapshot: DYNO_UPDATE_SNAPSHOTS=1 cargo test -p dyno-derive
#[doc(hidden)]
#[allow(non_upper_case_globals, unused_attributes, unused_qualifications, clippy::all)]
const _: () = {
    const __ENTITY: &str = <Order as ::dyno_core::__private::Entity>::ENTITY_TYPE;
    const _: ::dyno_core::__private::Field<Order, String> = <Order>::ORDER_ID;
    const _: ::dyno_core::__private::Field<Order, Decimal> = <Order>::TOTAL;
    #[automatically_derived]
    impl ::dyno_core::__private::FromItem for OrderSummary {
        fn accepts(item: &::dyno_core::__private::Item) -> bool {
            <Order as ::dyno_core::__private::Entity>::is_entity(item)
        }
        fn from_item(
            item: &::dyno_core::__private::Item,
        ) -> ::dyno_core::__private::Result<Self> {
            #[allow(unused_imports)]
            use ::dyno_core::__private::{RecoverKey as _, RecoverNone as _};
            ::core::result::Result::Ok(OrderSummary {
                order_id: ::dyno_core::__private::key_field::<
                    String,
                >(
                    item,
                    __ENTITY,
                    <Order>::ORDER_ID.name(),
                    || {
                        (&::dyno_core::__private::Recover::<String>::new())
                            .recover(
                                item,
                                __ENTITY,
                                "order_id",
                                <Order as ::dyno_core::__private::EntityMeta>::KEY_SOURCES,
                            )
                    },
                )?,
                total: ::dyno_core::__private::key_field::<
                    Decimal,
                >(
                    item,
                    __ENTITY,
                    <Order>::TOTAL.name(),
                    || {
                        (&::dyno_core::__private::Recover::<Decimal>::new())
                            .recover(
                                item,
                                __ENTITY,
                                "total",
                                <Order as ::dyno_core::__private::EntityMeta>::KEY_SOURCES,
                            )
                    },
                )?,
            })
        }
        fn ttl_attribute() -> ::core::option::Option<&'static str> {
            <Order as ::dyno_core::__private::FromItem>::ttl_attribute()
        }
        fn projection() -> ::core::option::Option<&'static [&'static str]> {
            static ATTRIBUTES: ::dyno_core::__private::BuiltOnce<
                ::std::vec::Vec<&'static str>,
            > = ::dyno_core::__private::BuiltOnce::new();
            ::core::option::Option::Some(
                ATTRIBUTES
                    .get(|| {
                        ::dyno_core::__private::projection_attributes::<
                            Order,
                        >(&[<Order>::ORDER_ID.name(), <Order>::TOTAL.name()])
                    })
                    .as_slice(),
            )
        }
    }
    #[automatically_derived]
    impl ::dyno_core::__private::ProjectionOf<Order> for OrderSummary {}
    #[automatically_derived]
    impl ::dyno_core::__private::FilterBy<Order> for OrderSummary {}
};
