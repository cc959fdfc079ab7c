// Expansion snapshot: DYNO_UPDATE_SNAPSHOTS=1 cargo test -p dyno-derive
#[doc(hidden)]
#[allow(non_upper_case_globals, unused_attributes, unused_qualifications, clippy::all)]
const _: () = {
    #[automatically_derived]
    impl OrderStatus {
        /// The variant's name as stored in keys and attributes.
        pub const fn key_name(&self) -> &'static str {
            match self {
                OrderStatus::Pending => "PENDING",
                OrderStatus::Shipped => "SENT",
            }
        }
    }
    #[automatically_derived]
    impl ::dyno_core::__private::KeyPart for OrderStatus {
        fn encode_key(
            &self,
            out: &mut ::std::string::String,
        ) -> ::dyno_core::__private::Result<()> {
            out.push_str(self.key_name());
            ::core::result::Result::Ok(())
        }
        fn decode_key(segment: &str) -> ::dyno_core::__private::Result<Self> {
            parse(segment)
                .ok_or_else(|| ::dyno_core::__private::Error::key(
                    ::core::option::Option::None,
                    ::std::format!(
                        "expected {}, found {:?}",
                        "one of \"PENDING\", \"SENT\" for OrderStatus", segment
                    ),
                ))
        }
    }
    fn parse(s: &str) -> ::core::option::Option<OrderStatus> {
        match s {
            "PENDING" => return ::core::option::Option::Some(OrderStatus::Pending),
            "SENT" => return ::core::option::Option::Some(OrderStatus::Shipped),
            _ => {}
        }
        ::core::option::Option::None
    }
    #[automatically_derived]
    impl ::dyno_core::__private::ToAttribute for OrderStatus {
        const SCALAR: ::core::option::Option<::dyno_core::__private::ScalarType> = ::core::option::Option::Some(
            ::dyno_core::__private::ScalarType::S,
        );
        fn to_attribute(
            &self,
        ) -> ::dyno_core::__private::Result<
            ::core::option::Option<::dyno_core::__private::AttributeValue>,
        > {
            ::core::result::Result::Ok(
                ::core::option::Option::Some(
                    ::dyno_core::__private::AttributeValue::S(
                        ::std::string::String::from(self.key_name()),
                    ),
                ),
            )
        }
    }
    #[automatically_derived]
    impl ::dyno_core::__private::FromAttribute for OrderStatus {
        fn from_attribute(
            value: &::dyno_core::__private::AttributeValue,
        ) -> ::dyno_core::__private::Result<Self> {
            match value {
                ::dyno_core::__private::AttributeValue::S(s) => {
                    parse(s)
                        .ok_or_else(|| ::dyno_core::__private::Error::decode(
                            "one of \"PENDING\", \"SENT\" for OrderStatus",
                            ::dyno_core::__private::describe(value),
                        ))
                }
                other => {
                    ::core::result::Result::Err(
                        ::dyno_core::__private::Error::decode(
                            "one of \"PENDING\", \"SENT\" for OrderStatus",
                            ::dyno_core::__private::describe(other),
                        ),
                    )
                }
            }
        }
    }
    #[automatically_derived]
    impl ::dyno_core::__private::SetElement for OrderStatus {
        fn to_set<'a>(
            items: impl ::core::iter::Iterator<Item = &'a Self>,
        ) -> ::dyno_core::__private::Result<::dyno_core::__private::AttributeValue>
        where
            Self: 'a,
        {
            ::core::result::Result::Ok(
                ::dyno_core::__private::AttributeValue::Ss(
                    items.map(|v| ::std::string::String::from(v.key_name())).collect(),
                ),
            )
        }
        fn from_set(
            value: &::dyno_core::__private::AttributeValue,
        ) -> ::dyno_core::__private::Result<::std::vec::Vec<Self>> {
            match value {
                ::dyno_core::__private::AttributeValue::Ss(names) => {
                    names
                        .iter()
                        .map(|s| {
                            parse(s)
                                .ok_or_else(|| ::dyno_core::__private::Error::decode(
                                    "one of \"PENDING\", \"SENT\" for OrderStatus",
                                    ::std::format!("{:?} in a string set", s),
                                ))
                        })
                        .collect()
                }
                other => {
                    ::core::result::Result::Err(
                        ::dyno_core::__private::Error::decode(
                            "SS (string set) of OrderStatus names",
                            ::dyno_core::__private::describe(other),
                        ),
                    )
                }
            }
        }
    }
};
