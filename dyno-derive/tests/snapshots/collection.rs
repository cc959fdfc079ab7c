// Expansion snapshot: DYNO_UPDATE_SNAPSHOTS=1 cargo test -p dyno-derive
#[doc (hidden)]
#[allow (non_camel_case_types , missing_debug_implementations)]
pub enum __DynoUserWithOrdersItem {
    F0 (User) ,
    F1 (Order)
}
#[doc = "A query reading one partition into a `UserWithOrders`; built by [`UserWithOrders::query`], run by `.get(&store)`."]
#[must_use = "a query does nothing until it is run with `.get(&store)`"]
pub struct UserWithOrdersQuery {
    query : :: dyno_core :: __private :: Query < __DynoUserWithOrdersItem > ,
}
#[doc (hidden)]
#[allow (non_upper_case_globals , unused_attributes , unused_qualifications , clippy :: all)]
const _ : () = {
    const _ : fn () = :: dyno_core :: __private :: assert_same_table :: < User ,
    User > ;
    const _ : fn () = :: dyno_core :: __private :: assert_same_table :: < User ,
    Order > ;
    #[automatically_derived]
    impl :: dyno_core :: __private :: FromItem for __DynoUserWithOrdersItem {
        fn accepts (item : & :: dyno_core :: __private :: Item) -> bool {
            < User as :: dyno_core :: __private :: FromItem > :: accepts (item) || < Order as :: dyno_core :: __private :: FromItem > :: accepts (item)
        }
        fn ttl_attribute () -> :: core :: option :: Option < & 'static str > {
            < User as :: dyno_core :: __private :: FromItem > :: ttl_attribute ()
        }
        fn from_item (item : & :: dyno_core :: __private :: Item) -> :: dyno_core :: __private :: Result < Self > {
            if < User as :: dyno_core :: __private :: FromItem > :: accepts (item) {
                return < User as :: dyno_core :: __private :: FromItem > :: from_item (item) . map (__DynoUserWithOrdersItem :: F0) ;
            }
            if < Order as :: dyno_core :: __private :: FromItem > :: accepts (item) {
                return < Order as :: dyno_core :: __private :: FromItem > :: from_item (item) . map (__DynoUserWithOrdersItem :: F1) ;
            }
            :: core :: result :: Result :: Err (:: dyno_core :: __private :: Error :: decode ("an item of one of User, Order" , :: dyno_core :: __private :: describe_item_type :: < User > (item)))
        }
    }
    #[automatically_derived]
    impl :: dyno_core :: __private :: FilterBy < User > for __DynoUserWithOrdersItem {}
    #[automatically_derived]
    impl :: dyno_core :: __private :: FilterBy < Order > for __DynoUserWithOrdersItem {}
    #[automatically_derived]
    impl UserWithOrders {
        #[doc = r" Queries one partition (the arguments are the partition key fields of the first entity,"]
        #[doc = r" a tuple when there are several) and returns every entity in it."]
        pub fn query < A > (partition : A) -> UserWithOrdersQuery where User : :: dyno_core :: __private :: PartitionKeyOf < A > ,
        {
            let query = :: dyno_core :: __private :: Query :: partition :: < User > (< User as :: dyno_core :: __private :: PartitionKeyOf < A >> :: partition_key (partition)) ;
            UserWithOrdersQuery {
                query
            }
        }
    }
    #[automatically_derived]
    impl :: core :: fmt :: Debug for UserWithOrdersQuery {
        fn fmt (& self , f : & mut :: core :: fmt :: Formatter < '_ >) -> :: core :: fmt :: Result {
            f . debug_struct ("UserWithOrdersQuery") . field ("query" , & self . query) . finish ()
        }
    }
    #[automatically_derived]
    impl UserWithOrdersQuery {
        #[doc = r" Keeps only items matching `condition`, built from one entity's fields."]
        pub fn filter < E > (self , condition : :: dyno_core :: __private :: Cond < E >) -> Self where __DynoUserWithOrdersItem : :: dyno_core :: __private :: FilterBy < E > ,
        {
            UserWithOrdersQuery {
                query : self . query . filter (condition)
            }
        }
        #[doc = r" Strongly consistent read."]
        pub fn consistent (self) -> Self {
            UserWithOrdersQuery {
                query : self . query . consistent ()
            }
        }
        #[doc = r" Asks the store for at most `n` items per page."]
        pub fn page_size (self , n : u32) -> Self {
            UserWithOrdersQuery {
                query : self . query . page_size (n)
            }
        }
        #[doc = r" Reads the whole partition (all pages) and groups it."]
        pub async fn get < St : :: dyno_core :: __private :: Store + ? :: core :: marker :: Sized > (self , store : & St) -> :: dyno_core :: __private :: Result < UserWithOrders > {
            let items = self . query . all (store) . await ? ;
            let mut out = UserWithOrders {
                user : :: core :: option :: Option :: None ,
                orders : :: std :: vec :: Vec :: new ()
            };
            for item in items {
                match item {
                    __DynoUserWithOrdersItem :: F0 (x) => {
                        if out . user . is_some () {
                            return :: core :: result :: Result :: Err (:: dyno_core :: __private :: Error :: validation ("the partition holds several `User` items but `UserWithOrders.user` is an `Option`: make it a `Vec`")) ;
                        }
                        out . user = :: core :: option :: Option :: Some (x) ;
                    }
                    __DynoUserWithOrdersItem :: F1 (x) => out . orders . push (x) ,
                }
            }
            :: core :: result :: Result :: Ok (out)
        }
    }
};
