-- A platform account's long-lived authorizer_refresh_token (reference/wechat-platform.md §1.6), sealed
-- (src/accounts/secret-box.ts): it only changes when the account authorizes again, and is lost on
-- unauthorize, so it lives in the database rather than a cache.
ALTER TABLE accounts ADD COLUMN authorizer_refresh_token_sealed text;
