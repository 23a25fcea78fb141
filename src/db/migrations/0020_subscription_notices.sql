-- Subscription notices (订阅通知, `message/subscribe/bizsend`) as a third channel. A follower's acceptances
-- come from `subscribe_msg_popup_event` / `subscribe_msg_change_event` pushes, one row per template: each
-- one-time acceptance adds one send (`remaining`), a rejection sets it to 0. The claim consumes one unit
-- per notice it lets through, on the row it locks; without one the message is skipped `no_subscription`.
CREATE TABLE notice_acceptances (
  app_id text NOT NULL,
  openid text NOT NULL,
  template_id text NOT NULL,
  remaining integer NOT NULL DEFAULT 0 CHECK (remaining >= 0),
  -- the follower's last answer: 'accept' or 'reject'
  last_answer text NOT NULL CHECK (last_answer IN ('accept', 'reject')),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (app_id, openid, template_id)
);

ALTER TABLE scheduled_messages DROP CONSTRAINT scheduled_messages_channel_check;
ALTER TABLE scheduled_messages ADD CONSTRAINT scheduled_messages_channel_check
  CHECK (channel IN ('custom', 'template', 'notice'));
-- The channel of `fallback`: a template message (as before) or a subscription notice.
ALTER TABLE scheduled_messages ADD COLUMN fallback_channel text NOT NULL DEFAULT 'template'
  CHECK (fallback_channel IN ('template', 'notice'));
-- A sent notice's delivery result from `subscribe_msg_sent_event`: `success` or `failed:<ErrorCode>`.
ALTER TABLE scheduled_messages ADD COLUMN notice_result text;
