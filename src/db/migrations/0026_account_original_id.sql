-- A platform account's original id (原始ID, gh_…), from api_get_authorizer_info when it authorized: the
-- ToUserName of its pushes, which the platform's URL checks (reference/wechat-platform.md §1.8, §1.9).
-- Null for an own account and for a platform account connected before it was kept.
ALTER TABLE accounts ADD COLUMN original_id text;
