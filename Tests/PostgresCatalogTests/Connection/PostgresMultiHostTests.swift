@testable import PostgresCatalog
import Testing

/// What Bookshelf adds to a connection string of one or several hosts, and how it reads the
/// log positions servers report (no server needed).
@Suite("PostgreSQL: one connection path for one or several hosts")
struct PostgresMultiHostTests {
    static func value(_ keyword: String, in pairs: [(String, String)]) -> String? {
        pairs.last { $0.0 == keyword }?.1
    }

    @Test("writes settle on the read-write host, standby reads prefer a standby, both named bookshelf")
    func purposes() {
        let connector = PostgresConnector("postgresql://alice@db1,db2:5433/books?target_session_attrs=any")
        let writes = connector.parameters(password: nil, purpose: .writes)
        let reads = connector.parameters(password: nil, purpose: .standbyReads)
        #expect(Self.value("target_session_attrs", in: writes) == "read-write")
        #expect(Self.value("target_session_attrs", in: reads) == "prefer-standby")
        for pairs in [writes, reads] {
            #expect(Self.value("fallback_application_name", in: pairs) == "bookshelf")
            #expect(Self.value("application_name", in: pairs) == nil)
            // The string is expanded in place of dbname: the requirement must come after it.
            let expanded = pairs.firstIndex { $0.0 == "dbname" }
            let required = pairs.lastIndex { $0.0 == "target_session_attrs" }
            #expect(expanded != nil && required != nil && expanded! < required!)
        }
    }

    @Test("a string of several hosts is described with all of them, and keeps them when signing in as another")
    func severalHosts() throws {
        let keywords = PostgresConnector("host=/run/a,/run/b port=5432,5433 dbname=books user=alice")
        let shown = keywords.description.split(separator: " ")
        #expect(shown.contains("host=/run/a,/run/b") && shown.contains("port=5432,5433"))
        let url = PostgresConnector("postgresql://alice:secret@db1:5432,db2:5433/books")
        let options = try #require(url.explicitOptions())
        #expect(options["host"] == "db1,db2" && options["port"] == "5432,5433")
        // Another account never gets the string's password, and keeps every host.
        let other = url.signingIn(as: "bob").parameters(password: nil)
        let rewritten = try #require(Self.value("dbname", in: other))
        #expect(rewritten.contains("host='db1,db2'") && rewritten.contains("port='5432,5433'"))
        #expect(!rewritten.contains("secret"))
    }

    @Test(
        "log positions are read as the server writes them, and anything else is refused",
        arguments: [
            ("0/0", 0 as UInt64?), ("0/3015FF0", 0x0301_5FF0), ("16/B374D848", 0x16_B374_D848),
            ("FFFFFFFF/FFFFFFFF", UInt64.max), ("", nil), ("0/", nil), ("/0", nil), ("1/2/3", nil),
            ("G/0", nil), ("123456789/0", nil), (" 1/2", nil), ("+1/2", nil), ("-1/2", nil), ("1/2\n", nil),
        ])
    func positions(text: String, expected: UInt64?) {
        #expect(WALPosition(text)?.value == expected)
        if let expected { #expect(WALPosition(value: expected).description == text) }
    }
}
