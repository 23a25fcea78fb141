-- Template messages' delivery reports. WeChat answers a template send with its msgid and later pushes a
-- TEMPLATESENDJOBFINISH event naming that MsgID with a Status; the message keeps the msgid, and the
-- report it gets, as src/store/template-reports.ts names them (DELIVERY_REPORTS, the same list as here).
ALTER TABLE scheduled_messages ADD COLUMN template_msgid text;
ALTER TABLE scheduled_messages ADD COLUMN delivery_report text
  CHECK (delivery_report IN ('delivered', 'failed_user_block', 'failed_system', 'failed_freq_limit', 'failed_other'));
CREATE INDEX scheduled_messages_template_msgid ON scheduled_messages (app_id, template_msgid)
  WHERE template_msgid IS NOT NULL;
