import BookCatalog

/// Deterministic sample books for the benchmark: English-like titles over a vocabulary of a few
/// hundred common words plus thousands of made-up ones, some accented words, and about 3%
/// Japanese titles. Kept private to the benchmark so its figures stay comparable over time.
///
/// Each book also has a record as real catalogs keep one (`BenchDetails`), drawn from a stream of
/// its own, so that the titles and authors are the same as before books had records.
struct BenchBooks: Sequence, IteratorProtocol {
    private var state: UInt64
    private var remaining: Int
    private var details: BenchDetails

    init(count: Int, seed: UInt64 = 20_240_601) {
        state = seed
        remaining = count
        details = BenchDetails(seed: seed)
    }

    /// Exact: lets an import of many books recreate the title index once instead of growing it.
    var underestimatedCount: Int { remaining }

    mutating func next() -> NewBook? {
        guard remaining > 0 else { return nil }
        remaining -= 1
        if random(100) < 3 {
            let title = (0..<(2 + random(4))).map { _ in Self.japanese[random(Self.japanese.count)] }.joined()
            return NewBook(
                title: title, author: Self.japaneseAuthors[random(Self.japaneseAuthors.count)], details: details.next())
        }
        var words: [String] = []
        if random(4) == 0 { words.append(["The", "A", "An"][random(3)]) }
        for position in 0..<(1 + random(5)) {
            if position > 0 && random(5) == 0 { words.append(["of", "and", "in", "the", "for"][random(5)]) }
            words.append(word())
        }
        let author = Self.firstNames[random(Self.firstNames.count)] + " " + Self.lastNames[random(Self.lastNames.count)]
        return NewBook(title: words.joined(separator: " "), author: author, details: details.next())
    }

    private mutating func word() -> String {
        let roll = random(10)
        let base: String
        if roll < 6 {
            base = Self.common[random(Self.common.count)]
        } else if roll < 7 {
            base = Self.accented[random(Self.accented.count)]
        } else {
            // Made-up words from syllables: a long tail of rare words, as real catalogs have.
            base = (0..<(2 + random(2))).map { _ in Self.syllables[random(Self.syllables.count)] }.joined()
        }
        return random(3) == 0 ? base.prefix(1).uppercased() + base.dropFirst() : base
    }

    private mutating func random(_ bound: Int) -> Int { SplitMix.next(&state, below: bound) }

    static let common = """
        history rome garden river night winter summer house city war peace love death king queen empire world
        stories tales life letters journey island mountain sea ocean forest stone fire water light shadow dark
        secret lost last first new old great little small silent golden silver black white red blue green
        man woman child children mother father daughter son brother sister friend stranger enemy soldier
        art science mind body heart soul time memory dream song poem book library music painting cooking
        travel voyage road bridge tower castle church school college street market village country nation
        history science physics chemistry biology mathematics philosophy economics politics law medicine
        guide introduction handbook companion essays lectures notes studies history atlas dictionary
        birds flowers trees animals horses dogs cats wolves bears fish insects stars planets moon sun
        morning evening autumn spring storm rain snow wind cloud sky earth garden field meadow harbor
        """.split(separator: " ").flatMap { $0.split(separator: "\n") }.map(String.init)
    static let accented = [
        "café", "naïve", "élan", "über", "façade", "crème", "señor", "mañana", "Zoë", "Ångström",
        "déjà", "résumé", "Köln", "São", "Dvořák", "Łódź", "smörgåsbord", "piñata",
    ]
    static let syllables = [
        "ka", "lo", "mi", "ren", "dor", "va", "tis", "quen", "bar", "el", "an", "thu", "gor", "sil",
        "ma", "ne", "ri", "os", "ul", "ste", "pha", "cor", "vin", "dal", "mer", "zu", "ix", "oth",
    ]
    static let firstNames = [
        "Mary", "John", "Anna", "Peter", "Sofia", "Ahmed", "Chen", "Olga", "Luis", "Emma", "Noah",
        "Hiroshi", "Amélie", "Björn", "Zoë", "Ivan", "Fatima", "Kofi", "Priya", "Liam",
    ]
    static let lastNames = [
        "Beard", "Tolstoy", "Austen", "Dickens", "Gibbon", "Murakami", "Achebe", "Woolf", "Borges",
        "Nabokov", "Márquez", "Eco", "Calvino", "Mann", "Hesse", "Orwell", "Brontë", "Dostoevsky",
        "Kafka", "Proust", "Rushdie", "Ishiguro", "Mantel", "Atwood", "Pamuk", "Lessing", "Tanizaki",
    ]
    static let japanese = [
        "日本", "の", "歴史", "東京", "物語", "京都", "春", "夏", "秋", "冬", "山", "川", "海", "花",
        "月", "夜", "旅", "猫", "犬", "森", "雪", "風", "ノート", "ひかり", "こころ",
    ]
    static let japaneseAuthors = ["山田太郎", "夏目漱石", "村上春樹", "川端康成", "吉本ばなな", "三島由紀夫"]
}

/// The SplitMix64 generator: deterministic on every platform, so the books are the same everywhere.
enum SplitMix {
    static func next(_ state: inout UInt64, below bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

/// The benchmark books' records: four in five have an ISBN (the nth book's is `isbn(ordinal:)`,
/// so the bench can look one up), most a year and a publisher, one in four a place in a series,
/// most a few tags from a list of genres, one in ten a line of notes (never searched).
struct BenchDetails {
    private var state: UInt64
    private var ordinal = 0

    init(seed: UInt64) { state = seed ^ 0x5EED_DE7A_1150_0000 }

    mutating func next() -> BookDetails {
        defer { ordinal += 1 }
        let tags = Set((0..<random(4)).map { _ in Self.genres[random(Self.genres.count)] }).sorted()
        let inSeries = random(4) == 0
        return BookDetails(
            isbn: ordinal % 5 == 4 ? nil : Self.isbn(ordinal: ordinal),
            year: random(10) == 0 ? nil : 1800 + random(226),
            publisher: random(5) == 0 ? "" : Self.publishers[random(Self.publishers.count)],
            series: inSeries ? "\(BenchBooks.common[random(BenchBooks.common.count)].capitalized) Cycle" : "",
            seriesIndex: inSeries ? SeriesIndex(thousandths: 1_000 * (1 + random(12))) : nil,
            tags: tags,
            notes: random(10) == 0 ? "Read in \(1990 + random(35)); lent to a friend." : "")
    }

    /// The canonical ISBN-13 of the `ordinal`th book (counting from 0) when it has one.
    static func isbn(ordinal: Int) -> String? {
        guard ordinal % 5 != 4 else { return nil }
        let body = "978" + String(String(1_000_000_000 + ordinal).suffix(9))
        let sum = body.enumerated().reduce(0) { $0 + ($1.offset.isMultiple(of: 2) ? 1 : 3) * Int(String($1.element))! }
        return body + String((10 - sum % 10) % 10)
    }

    private mutating func random(_ bound: Int) -> Int { SplitMix.next(&state, below: bound) }

    static let publishers = [
        "Penguin", "Vintage", "Faber and Faber", "Gallimard", "Suhrkamp", "Knopf", "HarperCollins", "Picador",
        "Oxford University Press", "Cambridge University Press", "Shinchōsha", "Kōdansha", "Anagrama", "Einaudi",
        "Bloomsbury", "Virago", "Granta", "Fischer", "Seuil", "Hanser",
    ]
    static let genres = [
        "fiction", "classics", "history", "fantasy", "science fiction", "mystery", "poetry", "biography",
        "philosophy", "travel", "cookery", "children", "translated", "to read", "favourites", "signed",
        "first edition", "book club", "essays", "drama", "日本文学", "non-fiction", "horror", "romance",
    ]
}
