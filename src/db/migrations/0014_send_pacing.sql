-- One send rate per account for the whole deployment (GCRA): `next_at` is when the account's next send
-- is free at its rate. A worker reserves the slots of the messages it just claimed in one short statement
-- of its own (the row lock lasts that statement, not the claim). The day's sends per channel count
-- against WeChat's daily quota (the day in Asia/Shanghai). Kept when an account is deleted: WeChat's
-- quota belongs to the app id.
CREATE TABLE send_pacing (
  app_id text PRIMARY KEY,
  next_at timestamptz NOT NULL,
  day date NOT NULL,
  custom_sent integer NOT NULL DEFAULT 0,
  template_sent integer NOT NULL DEFAULT 0
);
