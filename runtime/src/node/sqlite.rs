//! `node:sqlite` (`DatabaseSync`, `StatementSync`, as in Node 22) on SQLite through `rusqlite`.
//! Databases live in the isolate's `OpState`, by a number the JS object keeps; a statement is its
//! SQL, compiled once and kept in the connection's statement cache. Values cross as JSON, with
//! `{ "$b": hex }` for a BLOB and `{ "$i": "digits" }` for an integer JS must see as a BigInt.
//! Errors are Node's: `ERR_SQLITE_ERROR` with `errcode` and `errstr`, `ERR_INVALID_STATE` for a
//! closed database.

use std::collections::HashMap;

use deno_core::{op2, v8, OpState};
use deno_error::JsErrorBox;
use rusqlite::types::{Value as Sql, ValueRef};
use rusqlite::{Connection, OpenFlags};
use serde_json::{json, Map, Value};

/// Open databases of one isolate.
#[derive(Default)]
struct Databases {
    next: u32,
    open: HashMap<u32, Connection>,
}

/// An SQLite or state error with Node's fields.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
struct SqliteError {
    message: String,
    code: &'static str,
    errcode: Option<i32>,
    errstr: Option<String>,
}

impl deno_error::JsErrorClass for SqliteError {
    fn get_class(&self) -> std::borrow::Cow<'static, str> {
        "Error".into()
    }

    fn get_message(&self) -> std::borrow::Cow<'static, str> {
        self.message.clone().into()
    }

    fn get_additional_properties(&self) -> deno_error::AdditionalProperties {
        use deno_error::PropertyValue;
        let mut properties = vec![("code".into(), PropertyValue::String(self.code.into()))];
        if let Some(errcode) = self.errcode {
            properties.push(("errcode".into(), PropertyValue::Number(errcode.into())));
        }
        if let Some(errstr) = &self.errstr {
            properties.push((
                "errstr".into(),
                PropertyValue::String(errstr.clone().into()),
            ));
        }
        Box::new(properties.into_iter())
    }

    fn get_ref(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        self
    }
}

fn state_error(message: &str) -> JsErrorBox {
    JsErrorBox::from_err(SqliteError {
        message: message.into(),
        code: "ERR_INVALID_STATE",
        errcode: None,
        errstr: None,
    })
}

fn sqlite_error(e: rusqlite::Error) -> JsErrorBox {
    let (errcode, message) = match &e {
        rusqlite::Error::SqliteFailure(f, msg) => (
            f.extended_code,
            msg.clone().unwrap_or_else(|| f.to_string()),
        ),
        // A syntax error at prepare: SQLite's message, without rusqlite's "in <sql> at offset".
        rusqlite::Error::SqlInputError { error, msg, .. } => (error.extended_code, msg.clone()),
        other => (1, other.to_string()),
    };
    // SAFETY: sqlite3_errstr returns a static, NUL-terminated English text for any code.
    let errstr = unsafe { std::ffi::CStr::from_ptr(rusqlite::ffi::sqlite3_errstr(errcode)) }
        .to_string_lossy()
        .into_owned();
    JsErrorBox::from_err(SqliteError {
        message,
        code: "ERR_SQLITE_ERROR",
        errcode: Some(errcode),
        errstr: Some(errstr),
    })
}

fn invalid_arg(message: String) -> JsErrorBox {
    JsErrorBox::from_err(SqliteError {
        message,
        code: "ERR_INVALID_ARG_TYPE",
        errcode: None,
        errstr: None,
    })
}

fn with_db<T>(
    state: &mut OpState,
    id: u32,
    f: impl FnOnce(&Connection) -> Result<T, JsErrorBox>,
) -> Result<T, JsErrorBox> {
    let dbs = state.borrow_mut::<Databases>();
    let conn = dbs
        .open
        .get(&id)
        .ok_or_else(|| state_error("database is not open"))?;
    f(conn)
}

/// Opens a database (a path, a `file:` URL or `:memory:`); returns its number.
#[op2(fast)]
#[smi]
fn op_sqlite_open(
    state: &mut OpState,
    #[string] path: &str,
    read_only: bool,
    foreign_keys: bool,
    double_quoted_strings: bool,
) -> Result<u32, JsErrorBox> {
    if path != ":memory:" && !path.is_empty() {
        super::permission::read(state, path)?;
        if !read_only {
            super::permission::write(state, path)?;
        }
    }
    let mut flags = if read_only {
        OpenFlags::SQLITE_OPEN_READ_ONLY
    } else {
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE
    };
    flags |= OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(sqlite_error)?;
    conn.set_prepared_statement_cache_capacity(256);
    conn.pragma_update(None, "foreign_keys", foreign_keys)
        .map_err(sqlite_error)?;
    // SAFETY: a valid connection handle; the option takes two int arguments and a NULL.
    unsafe {
        let db = conn.handle();
        let on = i32::from(double_quoted_strings);
        rusqlite::ffi::sqlite3_db_config(
            db,
            rusqlite::ffi::SQLITE_DBCONFIG_DQS_DML,
            on,
            std::ptr::null_mut::<i32>(),
        );
        rusqlite::ffi::sqlite3_db_config(
            db,
            rusqlite::ffi::SQLITE_DBCONFIG_DQS_DDL,
            on,
            std::ptr::null_mut::<i32>(),
        );
    }
    let dbs = state.borrow_mut::<Databases>();
    dbs.next += 1;
    dbs.open.insert(dbs.next, conn);
    Ok(dbs.next)
}

#[op2(fast)]
fn op_sqlite_close(state: &mut OpState, #[smi] id: u32) -> Result<(), JsErrorBox> {
    match state.borrow_mut::<Databases>().open.remove(&id) {
        Some(conn) => conn.close().map_err(|(_, e)| sqlite_error(e)),
        None => Err(state_error("database is not open")),
    }
}

#[op2(fast)]
fn op_sqlite_exec(
    state: &mut OpState,
    #[smi] id: u32,
    #[string] sql: &str,
) -> Result<(), JsErrorBox> {
    with_db(state, id, |c| c.execute_batch(sql).map_err(sqlite_error))
}

/// Compiles a statement (so errors surface at `prepare`, as in Node); returns its column names.
#[op2]
#[serde]
fn op_sqlite_prepare(
    state: &mut OpState,
    #[smi] id: u32,
    #[string] sql: &str,
) -> Result<Vec<String>, JsErrorBox> {
    with_db(state, id, |c| {
        let stmt = c.prepare_cached(sql).map_err(sqlite_error)?;
        Ok(stmt.column_names().iter().map(|n| n.to_string()).collect())
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A JSON parameter as SQLite sees it.
fn to_sql(v: &Value) -> Result<Sql, JsErrorBox> {
    Ok(match v {
        Value::Null => Sql::Null,
        Value::Bool(b) => Sql::Integer(i64::from(*b)),
        Value::Number(n) => match n.as_i64() {
            Some(i) if n.is_i64() => Sql::Integer(i),
            _ => Sql::Real(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Sql::Text(s.clone()),
        Value::Object(o) if o.contains_key("$b") => Sql::Blob(
            o["$b"]
                .as_str()
                .and_then(unhex)
                .ok_or_else(|| invalid_arg("Invalid BLOB parameter".into()))?,
        ),
        Value::Object(o) if o.contains_key("$i") => Sql::Integer(
            o["$i"]
                .as_str()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| {
                    JsErrorBox::from_err(SqliteError {
                        message: "BigInt value is too large to bind.".into(),
                        code: "ERR_INVALID_ARG_VALUE",
                        errcode: None,
                        errstr: None,
                    })
                })?,
        ),
        other => {
            return Err(invalid_arg(format!(
                "Provided value cannot be bound to SQLite parameter: {other}"
            )))
        }
    })
}

const MAX_SAFE: i64 = (1 << 53) - 1;

fn from_sql(v: ValueRef, big_ints: bool) -> Result<Value, JsErrorBox> {
    Ok(match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) if big_ints => json!({ "$i": i.to_string() }),
        ValueRef::Integer(i) if (-MAX_SAFE..=MAX_SAFE).contains(&i) => json!(i),
        ValueRef::Integer(i) => {
            return Err(JsErrorBox::from_err(SqliteError {
                message: format!(
                    "Value is too large to be represented as a JavaScript number: {i}"
                ),
                code: "ERR_OUT_OF_RANGE",
                errcode: None,
                errstr: None,
            }))
        }
        ValueRef::Real(f) => json!(f),
        ValueRef::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => json!({ "$b": hex(b) }),
    })
}

/// Binds `params` (`{ named, positional }`): a parameter named `$a`, `:a` or `@a` takes
/// `named["$a"]` or, with bare names allowed, `named["a"]`; `?` parameters take the positional
/// values in order.
fn bind(
    stmt: &mut rusqlite::CachedStatement,
    params: &Value,
    bare_names: bool,
) -> Result<(), JsErrorBox> {
    let named = params["named"].as_object().cloned().unwrap_or_default();
    let positional = params["positional"].as_array().cloned().unwrap_or_default();
    let mut next = positional.iter();
    for i in 1..=stmt.parameter_count() {
        let value = match stmt.parameter_name(i) {
            Some(name) => {
                let bare = &name[1..];
                match named
                    .get(name)
                    .or_else(|| named.get(bare).filter(|_| bare_names))
                {
                    Some(v) => v.clone(),
                    None => {
                        return Err(JsErrorBox::from_err(SqliteError {
                            message: format!("Unknown named parameter '{bare}'"),
                            code: "ERR_INVALID_STATE",
                            errcode: None,
                            errstr: None,
                        }))
                    }
                }
            }
            None => next.next().cloned().unwrap_or(Value::Null),
        };
        stmt.raw_bind_parameter(i, to_sql(&value)?)
            .map_err(sqlite_error)?;
    }
    Ok(())
}

/// Runs a statement. `mode`: 0 `run` → `{ changes, lastInsertRowid }`, 1 `get` → the first
/// row or null, 2 `all` → every row; rows are objects by column name.
#[op2]
#[string]
#[allow(clippy::too_many_arguments)]
fn op_sqlite_step(
    scope: &mut v8::PinScope,
    state: &mut OpState,
    #[smi] id: u32,
    #[string] sql: &str,
    #[string] params: &str,
    #[smi] mode: u32,
    big_ints: bool,
    bare_names: bool,
) -> Result<String, JsErrorBox> {
    let params: Value = serde_json::from_str(params).unwrap_or_default();
    let out = with_db(state, id, |c| {
        let mut stmt = c.prepare_cached(sql).map_err(sqlite_error)?;
        stmt.clear_bindings();
        bind(&mut stmt, &params, bare_names)?;
        let names: Vec<String> = stmt.column_names().iter().map(|n| n.to_string()).collect();
        if mode == 0 {
            let mut rows = stmt.raw_query();
            while rows.next().map_err(sqlite_error)?.is_some() {}
            drop(rows);
            let rowid = c.last_insert_rowid();
            let rowid = if big_ints {
                json!({ "$i": rowid.to_string() })
            } else {
                json!(rowid)
            };
            return Ok(json!({ "changes": c.changes(), "lastInsertRowid": rowid }).to_string());
        }
        let mut rows = stmt.raw_query();
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(sqlite_error)? {
            let mut object = Map::new();
            for (i, name) in names.iter().enumerate() {
                let v = row.get_ref(i).map_err(sqlite_error)?;
                object.insert(name.clone(), from_sql(v, big_ints)?);
            }
            out.push(Value::Object(object));
            if mode == 1 {
                break;
            }
        }
        Ok(match mode {
            1 => out.into_iter().next().unwrap_or(Value::Null),
            _ => Value::Array(out),
        }
        .to_string())
    })?;
    // The rows become a string in the plugin's heap: they must fit (engine/budget.rs).
    crate::engine::budget::check(scope, state, 2 * out.len(), || {
        "The rows of the query".into()
    })?;
    Ok(out)
}

deno_core::extension!(
    paseo_sqlite,
    ops = [
        op_sqlite_open,
        op_sqlite_close,
        op_sqlite_exec,
        op_sqlite_prepare,
        op_sqlite_step,
    ],
    state = |state| {
        state.put(Databases::default());
    },
);
