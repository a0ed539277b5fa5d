use serde::Serialize;
use utoipa::ToSchema;

pub const DEFAULT_LIMIT: i64 = 50;
pub const MAX_LIMIT: i64 = 500;

/// One page of a listing, with the total count across all pages.
#[derive(Debug, Clone, Serialize, ToSchema, schemars::JsonSchema)]
pub struct Paged<T> {
    pub items: Vec<T>,
    pub total: u64,
    pub offset: i64,
    pub limit: i64,
}

/// Check `offset`/`limit` and apply the defaults.
pub fn window(offset: Option<i64>, limit: Option<i64>) -> crate::AppResult<(i64, i64)> {
    let offset = offset.unwrap_or(0);
    let limit = limit.unwrap_or(DEFAULT_LIMIT);
    if offset < 0 {
        return Err(crate::AppError::invalid("offset", format!("{offset} is negative; offset is 0 or more")));
    }
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(crate::AppError::invalid(
            "limit",
            format!("{limit} is not allowed; limit is from 1 to {MAX_LIMIT}"),
        ));
    }
    Ok((offset, limit))
}
