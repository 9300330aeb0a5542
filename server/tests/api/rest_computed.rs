//! Computed relationships over HTTP: functions taking a parent row and returning rows of
//! another relation are embedded by their name, to-many or to-one, under tables and views,
//! with filters, order, limits, `!inner`, aliases and normal embeds inside them.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{spawn_app, TestApp};

/// Authors, their books, a view of active authors, and the functions relating them.
async fn library_app() -> TestApp {
    let app = spawn_app().await;
    app.ddl(
        "create table public.authors (id int primary key, name text not null, active bool not null);
         create table public.books (id int primary key, author_id int references public.authors, title text, year int);
         create view public.active_authors as select * from public.authors where active;
         insert into public.authors values (1, 'Ada', true), (2, 'Brook', true), (3, 'Cyd', false);
         insert into public.books values
           (10, 1, 'Engines', 1843), (11, 1, 'Notes', 2001), (12, 1, 'Letters', 2010),
           (20, 2, 'Bridges', 1990), (30, 3, 'Drafts', 2020), (40, null, 'Anonymous', 1700);

         -- to-many, overloaded for the table and for the view
         create function public.works(a public.authors) returns setof public.books
           language sql stable as 'select * from public.books where author_id = a.id';
         create function public.works(a public.active_authors) returns setof public.books
           language sql stable as 'select * from public.books where author_id = a.id and year > 1900';
         -- to-one through rows 1
         create function public.latest_work(a public.authors) returns setof public.books
           language sql stable rows 1 as 'select * from public.books where author_id = a.id and year > 2000 order by year desc limit 1';
         -- to-one through a single row result
         create function public.writer(b public.books) returns public.authors
           language sql stable as 'select * from public.authors where id = b.author_id';
         -- named like a table: replaces the foreign-key embedding authors -> books
         create function public.books(a public.authors) returns setof public.books
           language sql stable as 'select * from public.books where author_id = a.id and year >= 2000';
         create function public.founders() returns setof public.authors
           language sql stable as 'select * from public.authors where id = 1';
         -- not relationships: no parameter, two parameters, a scalar result
         create function public.all_books() returns setof public.books language sql stable as 'select * from public.books';
         create function public.works_after(a public.authors, y int) returns setof public.books
           language sql stable as 'select * from public.books where author_id = a.id and year > y';
         create function public.book_count(a public.authors) returns bigint
           language sql stable as 'select count(*) from public.books where author_id = a.id';",
    )
    .await;
    app
}

async fn get(app: &TestApp, path: &str) -> (u16, Value) {
    let res = app.rest_req(Method::GET, path, None).send().await.expect("request");
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_function_returning_a_set_embeds_as_a_list_under_its_alias() {
    let app = library_app().await;
    let (status, body) = get(&app, "/authors?select=name,bibliography:works(title)&order=id&works.order=id").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!([
            {"name": "Ada", "bibliography": [{"title": "Engines"}, {"title": "Notes"}, {"title": "Letters"}]},
            {"name": "Brook", "bibliography": [{"title": "Bridges"}]},
            {"name": "Cyd", "bibliography": [{"title": "Drafts"}]},
        ])
    );
}

#[tokio::test]
async fn filters_order_and_limit_apply_to_the_rows_the_function_returns() {
    let app = library_app().await;
    let (status, body) = get(
        &app,
        "/authors?select=name,works(title,year)&id=eq.1&works.year=gt.1900&works.order=year.desc&works.limit=1",
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!([{"name": "Ada", "works": [{"title": "Letters", "year": 2010}]}]));

    // The alias names the embedding in filters and order too.
    let (status, body) = get(&app, "/authors?select=name,w:works(title)&id=eq.1&w.title=neq.Notes&w.order=title").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!([{"name": "Ada", "w": [{"title": "Engines"}, {"title": "Letters"}]}]));
}

#[tokio::test]
async fn a_function_returning_one_row_embeds_as_an_object_even_when_that_row_is_empty() {
    let app = library_app().await;
    let (status, body) = get(&app, "/books?select=title,author:writer(name)&id=in.(10,40)&order=id").await;
    assert_eq!(status, 200, "{body}");
    // A function returning a row type returns a row of nulls when it finds nothing, as in
    // PostgREST.
    assert_eq!(
        body,
        json!([{"title": "Engines", "author": {"name": "Ada"}}, {"title": "Anonymous", "author": {"name": null}}])
    );
}

#[tokio::test]
async fn a_set_returning_function_declared_rows_1_embeds_as_an_object_or_null() {
    let app = library_app().await;
    let (status, body) = get(&app, "/authors?select=name,latest_work(title)&order=id").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!([
            {"name": "Ada", "latest_work": {"title": "Letters"}},
            {"name": "Brook", "latest_work": null},
            {"name": "Cyd", "latest_work": {"title": "Drafts"}},
        ])
    );

    // To-one, so it can be spread into its parent.
    let (status, body) = get(&app, "/authors?select=name,...latest_work(last:title)&id=eq.1").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!([{"name": "Ada", "last": "Letters"}]));
}

#[tokio::test]
async fn inner_embeds_of_computed_relationships_drop_parents_without_rows() {
    let app = library_app().await;
    let (status, body) = get(&app, "/authors?select=name,latest_work!inner(title)&order=id").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!([{"name": "Ada", "latest_work": {"title": "Letters"}}, {"name": "Cyd", "latest_work": {"title": "Drafts"}}])
    );

    let (status, body) = get(&app, "/authors?select=name,works!inner(title)&works.year=lt.1900&order=id").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!([{"name": "Ada", "works": [{"title": "Engines"}]}]));
}

#[tokio::test]
async fn a_view_is_a_parent_and_picks_the_overload_taking_its_rows() {
    let app = library_app().await;
    let (status, body) = get(&app, "/active_authors?select=name,works(title)&order=id&works.order=id").await;
    assert_eq!(status, 200, "{body}");
    // The view's overload leaves out books before 1900; Cyd is not active.
    assert_eq!(
        body,
        json!([
            {"name": "Ada", "works": [{"title": "Notes"}, {"title": "Letters"}]},
            {"name": "Brook", "works": [{"title": "Bridges"}]},
        ])
    );
}

#[tokio::test]
async fn normal_embeds_nest_inside_a_computed_one() {
    let app = library_app().await;
    let (status, body) = get(&app, "/authors?select=id,works(id,authors(name),writer(id))&id=eq.2").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!([{"id": 2, "works": [{"id": 20, "authors": {"name": "Brook"}, "writer": {"id": 2}}]}]));
}

#[tokio::test]
async fn a_function_named_like_a_table_replaces_the_foreign_key_embedding() {
    let app = library_app().await;
    let (status, body) = get(&app, "/authors?select=name,books(title)&id=eq.1&books.order=id").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!([{"name": "Ada", "books": [{"title": "Notes"}, {"title": "Letters"}]}]));
}

#[tokio::test]
async fn functions_of_other_shapes_are_not_relationships() {
    let app = library_app().await;
    for name in ["all_books", "works_after", "book_count"] {
        let (status, body) = get(&app, &format!("/authors?select=name,{name}(*)")).await;
        assert_eq!(status, 400, "{name}: {body}");
        assert_eq!(body["code"], "PGRST200", "{name}");
    }
    // A computed relationship belongs to its parent's row type only.
    let (status, body) = get(&app, "/books?select=title,latest_work(*)").await;
    assert_eq!((status, body["code"].clone()), (400, json!("PGRST200")));
}

#[tokio::test]
async fn rows_written_by_a_request_can_embed_computed_relationships() {
    let app = library_app().await;
    let res = app
        .rest_req(Method::POST, "/books?select=title,writer(name)", Some(&app.service_key))
        .header("Prefer", "return=representation")
        .json(&json!({"id": 50, "author_id": 2, "title": "Arches", "year": 2024}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 201);
    assert_eq!(res.json::<Value>().await.unwrap(), json!([{"title": "Arches", "writer": {"name": "Brook"}}]));
}

#[tokio::test]
async fn rows_returned_by_an_rpc_call_can_embed_computed_relationships() {
    let app = library_app().await;
    let (status, body) = get(&app, "/rpc/founders?select=name,latest_work(title)").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!([{"name": "Ada", "latest_work": {"title": "Letters"}}]));
}
