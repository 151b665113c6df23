/// A deterministic stream of plausible books for first runs, demos, tests and benchmarks.
///
/// The same `(seed, index)` always gives the same book, on every platform, so a benchmark or a
/// test can name what it expects. The titles deliberately exercise what a catalog must get
/// right: accents (Café, Müller, Ångström), Japanese, Chinese and Korean text, emoji (including
/// ZWJ sequences and flags), very long titles, and families of titles sharing their first words
/// ("History of Rome", "A History of Rome", "History of Rome, Volume 2").
///
/// Generation is random access (`book(at:)`) and cheap: a handful of table look-ups and one
/// string build per book, so a million books take about a second in a release build.
public struct SampleBooks: Sequence, Sendable {
    public let count: Int
    public let seed: UInt64

    public init(count: Int, seed: UInt64 = 1) {
        self.count = Swift.max(0, count)
        self.seed = seed
    }

    /// The book at `index` (0-based); defined for any index, not only those below `count`.
    public func book(at index: Int) -> NewBook {
        // Each book starts at a scrambled point of the generator's cycle: seeding with
        // `seed + index` directly would make book n+1 replay book n's draws shifted by one.
        var random = SplitMix64(seed: SplitMix64.mix(seed ^ SplitMix64.mix(UInt64(truncatingIfNeeded: index))))
        let title = Self.title(using: &random)
        let author = Self.author(using: &random)
        return NewBook(title: title, author: author)
    }

    public func makeIterator() -> Iterator { Iterator(books: self) }

    public struct Iterator: IteratorProtocol {
        private let books: SampleBooks
        private var index = 0

        init(books: SampleBooks) { self.books = books }

        public mutating func next() -> NewBook? {
            guard index < books.count else { return nil }
            defer { index += 1 }
            return books.book(at: index)
        }
    }

    public var underestimatedCount: Int { count }
}

// MARK: - The catalog a first run starts with

extension SampleBooks {
    /// What a new catalog holds so the first run shows something real: a few accounts, and
    /// for each scope a handful of hand-picked landmark books followed by generated ones.
    /// Any store can be filled from it (the command line does SQLite; a demo may use memory).
    public struct Starter: Sendable {
        public struct Shelf: Sendable {
            public let scope: String
            public let landmarks: [NewBook]
            public let generated: SampleBooks

            /// Landmarks first, then the generated books (a few thousand: an array is fine).
            public var books: [NewBook] { landmarks + Array(generated) }
            public var count: Int { landmarks.count + generated.count }
        }

        public let accounts: [Account]
        public let shelves: [Shelf]
    }

    public static let starter = Starter(
        accounts: [
            Account(name: "alice", role: .editor, scope: "main"),
            Account(name: "bob", role: .reader, scope: "main"),
            Account(name: "carol", role: .editor, scope: "north"),
        ],
        shelves: [
            Starter.Shelf(scope: "main", landmarks: mainLandmarks, generated: SampleBooks(count: 3_000, seed: 1)),
            Starter.Shelf(scope: "north", landmarks: northLandmarks, generated: SampleBooks(count: 500, seed: 2)),
        ])

    /// Books every starter "main" shelf holds, whatever the generator does: tests and the
    /// README can name them. Some carry the details a real catalog keeps (an ISBN, a year, a
    /// publisher, a series and a place in it, tags, notes), so a new user sees what a record can
    /// hold; others have none, as many books in a real catalog have. Every value is in the form
    /// a store keeps (`BookDetails.validated()` gives it back unchanged).
    public static let mainLandmarks: [NewBook] = [
        NewBook(
            title: "History of Rome", author: "Theodor Mommsen",
            details: BookDetails(
                isbn: "9780140447934", year: 1854, publisher: "Weidmann", series: "History of Rome",
                seriesIndex: SeriesIndex(thousandths: 1_000), tags: ["classics", "history", "Rome"])),
        NewBook(
            title: "A History of Rome", author: "Mary Beard",
            details: BookDetails(
                isbn: "9781631492228", year: 2015, publisher: "Profile Books", tags: ["ancient", "history", "Rome"],
                notes: "Lent to Bob in March.\nHe wants to borrow Volume 2 next.")),
        NewBook(
            title: "History of Rome, Volume 2", author: "Theodor Mommsen",
            details: BookDetails(
                year: 1855, publisher: "Weidmann", series: "History of Rome",
                seriesIndex: SeriesIndex(thousandths: 2_000),
                tags: ["classics", "history", "Rome"])),
        NewBook(
            title: "Café Society", author: "Zoë Müller",
            details: BookDetails(
                isbn: "9783740927004", year: 2019, publisher: "Éditions du Café", tags: ["café", "essays"])),
        NewBook(title: "Ångström and the Light", author: "Björn Lindqvist"),
        NewBook(
            title: "日本の歴史", author: "佐藤 花子",
            details: BookDetails(
                isbn: "9784024043014", year: 1998, publisher: "中央公論社", series: "日本の歴史",
                seriesIndex: SeriesIndex(thousandths: 1_000), tags: ["history", "日本"])),
        NewBook(title: "中国古代史", author: "王伟"),
        NewBook(title: "한국의 역사", author: "김민준"),
        NewBook(
            title: "Cooking with 🍅 Tomatoes", author: "Chloé Dubois",
            details: BookDetails(
                year: 2021, publisher: "Chloé & Co", tags: ["cooking", "summer", "🍅"],
                notes: "Try the soup on page 42.\nThe tart needs less sugar.")),
        NewBook(
            title: "The Silent Lighthouse", author: "Aoife O'Brien",
            details: BookDetails(
                isbn: "9781781088883", year: 2023, series: "Lighthouse Mysteries",
                seriesIndex: SeriesIndex(thousandths: 2_500), tags: ["fiction", "mystery"],
                notes: "A novella set between books 2 and 3.")),
    ]

    public static let northLandmarks: [NewBook] = [
        NewBook(title: "Northern Lights over Tromsø", author: "Søren Þórsson"),
        NewBook(
            title: "Sagas of the Frozen Fjord", author: "Ingrid Ångström",
            details: BookDetails(
                year: 2008, publisher: "Nordlys Forlag", series: "Fjord Sagas",
                seriesIndex: SeriesIndex(thousandths: 1_000),
                tags: ["fiction", "sagas"])),
    ]
}

// MARK: - Generation

extension SampleBooks {
    private static func title(using random: inout SplitMix64) -> String {
        let roll = random.below(100)
        var title: String
        switch roll {
        case 0..<24: title = "The \(random.pick(adjectives)) \(random.pick(nouns))"
        case 24..<40: title = "\(random.pick(historyForms))\(random.pick(subjects))"
        case 40..<50: title = "\(random.pick(nouns)) of \(random.pick(places))"
        case 50..<58:
            let first = random.below(nouns.count)
            let second = (first + 1 + random.below(nouns.count - 1)) % nouns.count
            title = "The \(nouns[first]) and the \(nouns[second])"
        case 58..<66: title = random.pick(accentedTitles) + random.pick(accentedEndings)
        case 66..<72: title = random.pick(japaneseStems) + random.pick(japaneseEndings)
        case 72..<77: title = random.pick(chineseStems) + random.pick(chineseEndings)
        case 77..<82: title = random.pick(koreanStems) + random.pick(koreanEndings)
        case 82..<89: title = emojiTitle(using: &random)
        case 89..<90: title = longTitle(using: &random)
        default: title = "\(random.pick(adjectives)) \(random.pick(nouns))s"
        }
        switch random.below(10) {
        case 0: title += ", Volume \(random.below(12) + 2)"
        case 1: title += " (\(random.pick(editions)) Edition)"
        default: break
        }
        return title
    }

    private static func emojiTitle(using random: inout SplitMix64) -> String {
        let emoji = random.pick(emojis)
        return random.below(2) == 0
            ? "\(emoji) \(random.pick(subjects)) for Curious Minds"
            : "The \(random.pick(adjectives)) \(random.pick(nouns)) \(emoji)"
    }

    /// A title of about 200 to 440 characters, so long-title rendering and storage get
    /// exercised; with any edition or volume suffix it stays under the 500-character limit.
    private static func longTitle(using random: inout SplitMix64) -> String {
        let target = 260 + random.below(181)
        var title = "The \(random.pick(adjectives)) \(random.pick(nouns)): Being a True Account"
        while true {
            let clause = " \(random.pick(longClauses)) \(random.pick(subjects))"
            guard title.count + clause.count <= target else { return title }
            title += clause
        }
    }

    private static func author(using random: inout SplitMix64) -> String {
        switch random.below(100) {
        case 0: return ""  // anonymous works exist; the author field is optional
        case 1..<9: return random.pick(japaneseFamilyNames) + " " + random.pick(japaneseGivenNames)
        case 9..<14: return random.pick(chineseFamilyNames) + random.pick(chineseGivenNames)
        case 14..<19: return random.pick(koreanFamilyNames) + random.pick(koreanGivenNames)
        default: return random.pick(givenNames) + " " + random.pick(familyNames)
        }
    }

    private static let adjectives = [
        "Silent", "Hidden", "Last", "Forgotten", "Golden", "Broken", "Distant", "Crimson", "Quiet",
        "Endless", "Secret", "Northern", "Wandering", "Little", "Burning", "Frozen", "Lost",
        "Invisible", "Curious", "Bright", "Naïve", "Restless", "Velvet", "Iron", "Paper",
    ]
    private static let nouns = [
        "Garden", "River", "Empire", "Kingdom", "Library", "Mountain", "Harbor", "Lighthouse",
        "Orchard", "Clockmaker", "Cartographer", "Winter", "Island", "Station", "Bridge", "Forest",
        "Letter", "Map", "Mirror", "Voyage", "Café", "Fiancée", "Archive", "Compass", "Observatory",
    ]
    private static let historyForms = [
        "History of ", "A History of ", "A Short History of ", "The History of ",
        "Introduction to ", "An Introduction to ", "Essays on ", "Notes on ",
    ]
    private static let subjects = [
        "Rome", "Byzantium", "the Ottoman Empire", "Mathematics", "Astronomy", "Chemistry",
        "Café Culture", "Jazz", "Japan", "Korea", "China", "Iceland", "Brazil", "the Baltic",
        "Photography", "Typography", "Cryptography", "Sailing", "Crème Brûlée", "Romania",
    ]
    private static let places = [
        "Zürich", "Kraków", "Malmö", "São Paulo", "Reykjavík", "Montréal", "Córdoba", "Ærøskøbing",
        "Łódź", "Besançon", "Düsseldorf", "Tromsø", "Venice", "Alexandria", "Kyoto", "Timbuktu",
    ]
    private static let accentedTitles = [
        "Crème Brûlée", "Señor Niño's Garden", "Über den Wolken", "Ångström's Notebook",
        "Müller and Daughters", "Les Misérables", "The Fiancée", "Smörgåsbord", "Café au Lait",
        "Dvořák", "Ça ira", "Ærø", "Pokémon", "Déjà Vu", "Naïveté", "El Niño",
    ]
    private static let accentedEndings = [
        "", "", " at Midnight", " Revisited", " in Zürich", " in Kraków", " in Montréal",
        ": An Island Story", " and Other Stories", " for Beginners", " in São Paulo",
    ]
    private static let japaneseStems = ["日本", "東京", "京都", "大阪", "江戸", "富士山", "北海道", "コーヒー"]
    private static let japaneseEndings = ["の歴史", "物語", "の四季", "の料理", "散歩", "の文化", "の科学"]
    private static let chineseStems = ["中国", "北京", "上海", "长江", "唐朝", "茶"]
    private static let chineseEndings = ["的历史", "往事", "简史", "的故事", "古代史"]
    private static let koreanStems = ["한국", "서울", "부산", "제주도"]
    private static let koreanEndings = ["의 역사", " 이야기", "의 음식", " 여행"]
    private static let emojis = ["🌸", "🚀", "📚", "🐉", "☕", "🌍", "🎻", "🦊", "🍜", "🌙", "👩‍🚀", "🇯🇵"]
    private static let editions = ["2nd", "3rd", "Revised", "Illustrated", "Anniversary"]
    private static let longClauses = [
        "of a Journey through", "with Notes on", "and Certain Observations upon",
        "together with a Treatise on", "as Related by Travellers from", "concerning",
    ]
    private static let givenNames = [
        "Anna", "Jean", "Zoë", "José", "Søren", "François", "Björn", "Chloé", "Mehmet", "Ngozi",
        "Aoife", "Siobhán", "Łukasz", "Renée", "Émile", "Priya", "Oliver", "Maria", "Hiroshi",
        "Ingrid", "Tomás", "Ana", "Kwame", "Elif", "Dmitri",
    ]
    private static let familyNames = [
        "Müller", "Ångström", "García Márquez", "O'Brien", "Nguyễn", "Dvořák", "Schröder", "Smith",
        "Okafor", "Novak", "Kowalski", "Lindqvist", "Þórsson", "Brontë", "Ibáñez", "Hernández",
        "Dubois", "Rossi", "Yılmaz", "Jensen", "Fischer", "Costa", "Papadopoulos", "Ward",
    ]
    private static let japaneseFamilyNames = ["佐藤", "鈴木", "高橋", "田中", "山本", "渡辺"]
    private static let japaneseGivenNames = ["花子", "健太", "美咲", "翔", "陽菜", "大輔"]
    private static let chineseFamilyNames = ["王", "李", "张", "刘", "陈"]
    private static let chineseGivenNames = ["伟", "芳", "静", "磊", "秀英"]
    private static let koreanFamilyNames = ["김", "이", "박", "최"]
    private static let koreanGivenNames = ["민준", "서연", "지우", "하윤"]
}

/// A small, fast, well-distributed generator whose output is fixed by its algorithm, unlike
/// the standard library's, so samples are the same on every platform and release.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// SplitMix64's finaliser: a bijection that scatters nearby inputs across all 64 bits.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`; the modulo bias is irrelevant for bounds this small.
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    mutating func pick<T>(_ choices: [T]) -> T {
        choices[below(choices.count)]
    }
}
