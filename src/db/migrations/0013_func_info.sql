-- The permission sets (func_info ids, reference/wechat-platform.md §1.8) a platform account granted when
-- it last authorized the platform: 1 / 6 allow customer-service sends, 7 template sends.
ALTER TABLE accounts ADD COLUMN func_info jsonb;
