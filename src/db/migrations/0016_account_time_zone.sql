-- The time zone the admin page shows an account's dates and times in (an IANA name, checked by the API):
-- marketing teams in China read Beijing time, whatever zone the servers or the browser run in.
ALTER TABLE accounts ADD COLUMN time_zone text NOT NULL DEFAULT 'Asia/Shanghai';
