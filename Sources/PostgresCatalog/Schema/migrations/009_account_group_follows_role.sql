-- An account's group follows the role its row names, however the row is changed: a promotion
-- by hand in bookshelf.accounts otherwise left the login role without the editor's privileges.

CREATE FUNCTION bookshelf.account_group_follows_role() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog AS $$
DECLARE
    granted text;
    revoked text;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = NEW.name) THEN
        RETURN NULL;
    END IF;
    SELECT g.name INTO granted FROM bookshelf.groups g WHERE g.role = NEW.role;
    SELECT g.name INTO revoked FROM bookshelf.groups g WHERE g.role <> NEW.role;
    EXECUTE format('GRANT %I TO %I', granted, NEW.name);
    EXECUTE format('REVOKE %I FROM %I', revoked, NEW.name);
    RETURN NULL;
END $$;
REVOKE ALL ON FUNCTION bookshelf.account_group_follows_role() FROM PUBLIC;
CREATE TRIGGER accounts_group_follows_role AFTER UPDATE OF role ON bookshelf.accounts
    FOR EACH ROW WHEN (OLD.role IS DISTINCT FROM NEW.role)
    EXECUTE FUNCTION bookshelf.account_group_follows_role();
