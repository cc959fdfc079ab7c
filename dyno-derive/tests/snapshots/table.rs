// Expansion snapshot: DYNO_UPDATE_SNAPSHOTS=1 cargo test -p dyno-derive
#[doc (hidden)]
#[allow (non_upper_case_globals , unused_attributes , unused_qualifications , clippy :: all)]
const _ : () = {
    #[automatically_derived]
    impl :: dyno_core :: __private :: Table for ECommerce {
        fn definition () -> & 'static :: dyno_core :: __private :: TableDef {
            static DEFINITION : :: dyno_core :: __private :: OnceLock < :: dyno_core :: __private :: TableDef > = :: dyno_core :: __private :: OnceLock :: new () ;
            DEFINITION . get_or_init (|| :: dyno_core :: __private :: TableDef :: new ("ECommerce" , "PK" , :: core :: option :: Option :: Some ("SK")) . global_index (:: dyno_core :: __private :: IndexDef :: new ("GSI1" , "GSI1PK" , :: core :: option :: Option :: Some ("GSI1SK")) . projection (:: dyno_core :: __private :: Projection :: All)) . local_index (:: dyno_core :: __private :: IndexDef :: new ("LSI1" , "PK" , :: core :: option :: Option :: Some ("LSI1SK")) . projection (:: dyno_core :: __private :: Projection :: KeysOnly)) . ttl ("ttl"))
        }
    }
    #[automatically_derived]
    impl :: dyno_core :: __private :: TableKeys for ECommerce {
        const PK : & 'static str = "PK" ;
        const SK : :: core :: option :: Option < & 'static str > = :: core :: option :: Option :: Some ("SK") ;
        const TTL : :: core :: option :: Option < & 'static str > = :: core :: option :: Option :: Some ("ttl") ;
    }
    #[automatically_derived]
    impl :: dyno_core :: __private :: TableIndex < {
        :: dyno_core :: __private :: index_id ("GSI1")
    }
    > for ECommerce {
        type Kind = :: dyno_core :: __private :: Global ;
        const NAME : & 'static str = "GSI1" ;
        const PK : & 'static str = "GSI1PK" ;
        const SK : :: core :: option :: Option < & 'static str > = :: core :: option :: Option :: Some ("GSI1SK") ;
        const LOCAL : bool = false ;
    }
    #[automatically_derived]
    impl :: dyno_core :: __private :: TableIndex < {
        :: dyno_core :: __private :: index_id ("LSI1")
    }
    > for ECommerce {
        type Kind = :: dyno_core :: __private :: Local ;
        const NAME : & 'static str = "LSI1" ;
        const PK : & 'static str = "PK" ;
        const SK : :: core :: option :: Option < & 'static str > = :: core :: option :: Option :: Some ("LSI1SK") ;
        const LOCAL : bool = true ;
    }
    #[automatically_derived]
    impl ECommerce {
        #[doc = "The name of index `GSI1`."]
        pub const GSI1 : & 'static str = "GSI1" ;
        #[doc = "The name of index `LSI1`."]
        pub const LSI1 : & 'static str = "LSI1" ;
    }
};
