-- Setting groups and settings. Written so that it also upgrades a database of an older version, whose
-- settings table grouped keys by a `category` column: the table is kept with its rows, the column renamed
-- to group_id, so no stored value is lost.

CREATE TABLE IF NOT EXISTS setting_groups (
  id text PRIMARY KEY,
  name text NOT NULL,
  description text,
  icon text,
  sort_order integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS settings (
  key text PRIMARY KEY,
  value text NOT NULL,
  description text,
  is_encrypted boolean NOT NULL DEFAULT false,
  group_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

DO $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = 'settings' AND column_name = 'category'
  ) THEN
    ALTER TABLE settings RENAME COLUMN category TO group_id;
  END IF;
END $$;

-- Categories of an older version become groups, so every group_id refers to a row.
INSERT INTO setting_groups (id, name)
SELECT DISTINCT group_id, group_id FROM settings WHERE group_id IS NOT NULL
ON CONFLICT (id) DO NOTHING;

ALTER TABLE settings
  ADD CONSTRAINT settings_group_id_fkey FOREIGN KEY (group_id)
  REFERENCES setting_groups (id) ON UPDATE CASCADE ON DELETE SET NULL;

CREATE INDEX settings_group_id_idx ON settings (group_id);

-- Every write takes the next revision; replicas apply a cache change only when it is newer than what
-- they hold, so broadcasts arriving out of order never roll a value back.
CREATE SEQUENCE settings_revision_seq;
ALTER TABLE settings ADD COLUMN revision bigint NOT NULL DEFAULT nextval('settings_revision_seq');
