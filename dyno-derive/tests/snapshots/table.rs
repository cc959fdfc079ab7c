// Expansion snapshot: DYNO_UPDATE_SNAPSHOTS=1 cargo test -p dyno-derive
#[doc(hidden)]
#[allow(non_local_definitions)]
#[macro_export]
macro_rules! __dyno_table_ECommerce_aab3ed95bfeef716 {
    ($($entity:tt)*) => {
        ::dyno_core::__private::index_stubs! { ["GSI1", "LSI1"] $($entity)* }
    };
}
#[doc(hidden)]
#[allow(unused_imports, unreachable_pub)]
pub use __dyno_table_ECommerce_aab3ed95bfeef716 as ECommerce;
#[doc(hidden)]
#[allow(non_upper_case_globals, unused_attributes, unused_qualifications, clippy::all)]
const _: () = {
    #[automatically_derived]
    impl ::dyno_core::__private::Table for ECommerce {
        fn definition() -> &'static ::dyno_core::__private::TableDef {
            static DEFINITION: ::dyno_core::__private::BuiltOnce<
                ::dyno_core::__private::TableDef,
            > = ::dyno_core::__private::BuiltOnce::new();
            DEFINITION
                .get(|| {
                    ::dyno_core::__private::TableDef::new(
                            "ECommerce",
                            "PK",
                            ::core::option::Option::Some("SK"),
                        )
                        .global_index(
                            ::dyno_core::__private::IndexDef::new(
                                    "GSI1",
                                    "GSI1PK",
                                    ::core::option::Option::Some("GSI1SK"),
                                )
                                .projection(::dyno_core::__private::Projection::All),
                        )
                        .local_index(
                            ::dyno_core::__private::IndexDef::new(
                                    "LSI1",
                                    "PK",
                                    ::core::option::Option::Some("LSI1SK"),
                                )
                                .projection(::dyno_core::__private::Projection::KeysOnly),
                        )
                        .ttl("ttl")
                })
        }
    }
    #[automatically_derived]
    impl ::dyno_core::__private::TableKeys for ECommerce {
        const PK: &'static str = "PK";
        const SK: ::core::option::Option<&'static str> = ::core::option::Option::Some(
            "SK",
        );
        const TTL: ::core::option::Option<&'static str> = ::core::option::Option::Some(
            "ttl",
        );
    }
    #[automatically_derived]
    impl ECommerce {
        ///Index `GSI1`: its name and key attributes.
        pub const GSI1: ::dyno_core::__private::TableIndex = ::dyno_core::__private::TableIndex {
            name: "GSI1",
            partition_key: "GSI1PK",
            sort_key: ::core::option::Option::Some("GSI1SK"),
            local: false,
            partition_attributes: &[("GSI1PK", ::dyno_core::__private::ScalarType::S)],
            sort_attributes: &[("GSI1SK", ::dyno_core::__private::ScalarType::S)],
        };
        ///Index `LSI1`: its name and key attributes.
        pub const LSI1: ::dyno_core::__private::TableIndex = ::dyno_core::__private::TableIndex {
            name: "LSI1",
            partition_key: "PK",
            sort_key: ::core::option::Option::Some("LSI1SK"),
            local: true,
            partition_attributes: &[("PK", ::dyno_core::__private::ScalarType::S)],
            sort_attributes: &[("LSI1SK", ::dyno_core::__private::ScalarType::S)],
        };
    }
};
