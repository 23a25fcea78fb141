-- A/B steps: the variant of a step each enrollment's row was given (null for a step without variants).
ALTER TABLE scheduled_messages ADD COLUMN variant text;
