use super::*;

fn recs(v: Value) -> Vec<Record> {
    v.as_array().unwrap().iter().map(|r| r.as_object().unwrap().clone()).collect()
}

fn show(rows: &[Record], format: TableStyle) -> String {
    String::from_utf8(render(rows, None, format, &Columns::All).unwrap()).unwrap()
}

fn pick(rows: &[Record], columns: &[&str]) -> Result<String, String> {
    render(rows, None, TableStyle::Table, &Columns::named(columns)).map(|b| String::from_utf8(b).unwrap())
}

#[test]
fn fractions_are_rounded_for_people_only() {
    assert_eq!(rounded(3622.1111111111113), "3622.11");
    assert_eq!(rounded(0.00310625), "0.00310625");
    assert_eq!(rounded(2.4863724), "2.48637");
    assert_eq!(rounded(1234567.891), "1234568");
    assert_eq!(rounded(-0.5), "-0.5");
    assert_eq!(rounded(99999.95), "99999.9");
    let rows = recs(serde_json::json!([{"k": "a", "mean": 3622.1111111111113, "n": 7}]));
    assert_eq!(show(&rows, TableStyle::Table), "k      mean  n\na  3,622.11  7\n");
    assert_eq!(show(&rows, TableStyle::Csv), "k,mean,n\na,3622.1111111111113,7\n");
}

#[test]
fn wide_characters_take_two_columns() {
    let rows = recs(serde_json::json!([{"w": "日本語", "n": 1}, {"w": "abc", "n": 22}]));
    assert_eq!(show(&rows, TableStyle::Table), "w        n\n日本語   1\nabc     22\n");
}

#[test]
fn aligns_and_flattens() {
    let r = recs(serde_json::json!([
        {"event": "tool:pre", "count": 10, "x": {"sum": 1.5}},
        {"event": "session:start", "count": 7, "x": {"sum": null}},
    ]));
    assert_eq!(
        show(&r, TableStyle::Table),
        "event          count  x.sum\ntool:pre          10    1.5\nsession:start      7   null\n"
    );
    assert_eq!(show(&r, TableStyle::Tsv), "event\tcount\tx.sum\ntool:pre\t10\t1.5\nsession:start\t7\t\n");
}

#[test]
fn csv_quotes_and_tsv_escapes() {
    let r = recs(serde_json::json!([{"w": "a,b \"c\"", "n": "x\ty\nz"}]));
    assert_eq!(show(&r, TableStyle::Csv), "w,n\n\"a,b \"\"c\"\"\",\"x\ty\nz\"\n");
    assert_eq!(show(&r, TableStyle::Tsv), "w\tn\na,b \"c\"\tx\\ty\\nz\n");
    let r = recs(serde_json::json!([{"w": "nul\u{0} esc\u{1b}[31m cr\r back\\slash"}]));
    assert_eq!(show(&r, TableStyle::Tsv), "w\nnul\\u{0} esc\\u{1b}[31m cr\\r back\\\\slash\n");
    assert_eq!(show(&r, TableStyle::Table), "w\nnul\\u{0} esc\\u{1b}[31m cr\\r back\\slash\n");
}

#[test]
fn columns_are_chosen_and_ordered() {
    let r = recs(serde_json::json!([
        {"id": "a", "tokens": {"in": 1, "out": 2}, "events": {"x": 3, "y": 4}, "calls": {}},
        {"id": "b", "tokens": {"in": 5, "out": 6}, "events": {"x": 1}, "calls": {"t": 2.5}},
    ]));
    assert_eq!(pick(&r, &["tokens.out", "id"]).unwrap(), "tokens.out  id\n         2  a\n         6  b\n");
    // An object's name is every column under it.
    assert_eq!(
        pick(&r, &["id", "tokens"]).unwrap(),
        "id  tokens.in  tokens.out\na           1           2\nb           5           6\n"
    );
    // sum(): 0 for an empty object; a name under an object no record fills is empty.
    assert_eq!(
        pick(&r, &["id", "sum(events)", "sum(calls)", "events.z"]).unwrap(),
        "id  sum(events)  sum(calls)  events.z\na             7           0\nb             1         2.5\n"
    );
    assert_eq!(pick(&r, &["idd"]).unwrap_err(), "no column \"idd\"; did you mean \"id\"?");
    assert_eq!(pick(&r, &["sum(tokenz)"]).unwrap_err(), "no column \"tokenz\"; did you mean \"tokens\"?");
    assert_eq!(pick(&r, &["zzzzzz"]).unwrap_err(), "no column \"zzzzzz\" (the columns: id, calls, tokens, events)");
    let except = render(&r, None, TableStyle::Csv, &Columns::Except(vec!["events".into(), "calls".into()]));
    assert_eq!(String::from_utf8(except.unwrap()).unwrap(), "id,tokens.in,tokens.out\na,1,2\nb,5,6\n");
}

#[test]
fn a_footer_is_shown_with_its_label() {
    let r = recs(serde_json::json!([{"k": "a", "n": 1}, {"k": "b", "n": 2}]));
    let total = recs(serde_json::json!([{"k": "total", "n": 3}])).remove(0);
    let t = |cols: &[&str]| {
        String::from_utf8(render(&r, Some(&total), TableStyle::Table, &Columns::named(cols)).unwrap()).unwrap()
    };
    assert_eq!(t(&["k", "n"]), "k      n\na      1\nb      2\ntotal  3\n");
    assert_eq!(t(&["n"]), "n\n1\n2\n");
}

#[test]
fn sorting_by_a_column() {
    let mut r = recs(serde_json::json!([
        {"k": "a", "v": 1, "m": {"x": 1}},
        {"k": "b", "v": null, "m": {"x": 5, "y": 5}},
        {"k": "c", "v": 3, "m": {}},
        {"k": "d", "v": "text", "m": {"x": 2}},
        {"k": "e", "v": 3},
    ]));
    let keys = |r: &[Record]| r.iter().map(|x| x["k"].as_str().unwrap().to_owned()).collect::<Vec<_>>().join("");
    sort_by_column(&mut r, "v").unwrap();
    assert_eq!(keys(&r), "ceadb");
    sort_by_column(&mut r, "k").unwrap();
    assert_eq!(keys(&r), "abcde");
    sort_by_column(&mut r, "sum(m)").unwrap();
    assert_eq!(keys(&r), "bdace");
    assert_eq!(sort_by_column(&mut r, "m").unwrap_err(), "\"m\" is 2 columns; name one: m.x, m.y");
    assert_eq!(sort_by_column(&mut r, "vv").unwrap_err(), "no column \"vv\"; did you mean \"v\"?");
}

fn fitted(rows: &[Record], format: TableStyle, width: Option<usize>) -> (String, Vec<String>) {
    let fit = Fit { width, ..Fit::default() };
    let done = render_fit(rows, None, format, &Columns::All, &fit).unwrap();
    (String::from_utf8(done.bytes).unwrap(), done.dropped)
}

#[test]
fn markdown_tables() {
    let r = recs(serde_json::json!([{"k": "a|b", "n": 1234}, {"k": "c", "n": 5}]));
    assert_eq!(
        fitted(&r, TableStyle::Markdown, None).0,
        "| k    |     n |\n| ---- | ----: |\n| a\\|b | 1,234 |\n| c    |     5 |\n"
    );
}

#[test]
fn a_table_fits_its_width() {
    let r = recs(serde_json::json!([
        {"id": "0123456789abcdefghij", "path": "a/very/long/path/name", "n": 1, "m": 2},
    ]));
    // Wide enough: as it is.
    let (t, dropped) = fitted(&r, TableStyle::Table, Some(80));
    assert_eq!(
        t,
        "id                    path                   n  m\n0123456789abcdefghij  a/very/long/path/name  1  2\n"
    );
    assert!(dropped.is_empty());
    // Text abbreviated, the room left given back to the one needing least.
    let (t, dropped) = fitted(&r, TableStyle::Table, Some(40));
    assert_eq!(t, "id                    path          n  m\n0123456789abcdefghij  a/very/long…  1  2\n");
    assert!(dropped.is_empty());
    // Then columns left out from the right.
    let (t, dropped) = fitted(&r, TableStyle::Table, Some(28));
    assert_eq!(t, "id              path\n0123456789abc…  a/very/long…\n");
    assert_eq!(dropped, ["n", "m"]);
    // Expendable columns first.
    let fit = Fit { width: Some(28), expendable: vec!["path".into()], ..Fit::default() };
    let done = render_fit(&r, None, TableStyle::Table, &Columns::All, &fit).unwrap();
    assert_eq!(String::from_utf8(done.bytes).unwrap(), "id                    n  m\n0123456789abcdefghij  1  2\n");
    assert_eq!(done.dropped, ["path"]);
    // The first column alone still too wide: cut.
    let (t, _) = fitted(&r, TableStyle::Table, Some(5));
    assert_eq!(t, "id\n0123…\n");
}

#[test]
fn an_empty_result_has_its_header() {
    let named = render(&[], None, TableStyle::Csv, &Columns::named(&["a", "sum(b)"])).unwrap();
    assert_eq!(String::from_utf8(named).unwrap(), "a,sum(b)\n");
    let template = recs(serde_json::json!([{"day": null, "tz": "UTC", "count": null}])).remove(0);
    let fit = Fit { template: Some(template), ..Fit::default() };
    let t = |format| String::from_utf8(render_fit(&[], None, format, &Columns::All, &fit).unwrap().bytes).unwrap();
    assert_eq!(t(TableStyle::Table), "day (UTC)  count\n");
    assert_eq!(t(TableStyle::Tsv), "day\ttz\tcount\n");
    assert_eq!(show(&[], TableStyle::Csv), "");
}
