// Expansion snapshot: DYNO_UPDATE_SNAPSHOTS=1 cargo test -p dyno-derive
::core::compile_error! {
    "no field `usr_id` in `User`: template placeholders name struct fields (fields: user_id)"
}
#[doc(hidden)]
#[allow(non_upper_case_globals, unused_attributes, unused_qualifications, clippy::all)]
const _: () = {
    impl ::dyno_core::__private::Entity for User {
        type Table = ::dyno_core::__private::StubTable;
        const ENTITY_TYPE: &'static str = "User";
        const PK: ::dyno_core::__private::Template = ::dyno_core::__private::Template::new(
            &[],
        );
        const SK: ::core::option::Option<::dyno_core::__private::Template> = ::core::option::Option::None;
        fn key(&self) -> ::dyno_core::__private::Result<::dyno_core::__private::Item> {
            ::core::result::Result::Err(
                ::dyno_core::__private::Error::validation("invalid Entity derive"),
            )
        }
        fn to_item(
            &self,
        ) -> ::dyno_core::__private::Result<::dyno_core::__private::Item> {
            ::core::result::Result::Err(
                ::dyno_core::__private::Error::validation("invalid Entity derive"),
            )
        }
        fn from_item(
            _: &::dyno_core::__private::Item,
        ) -> ::dyno_core::__private::Result<Self> {
            ::core::result::Result::Err(
                ::dyno_core::__private::Error::validation("invalid Entity derive"),
            )
        }
    }
};
