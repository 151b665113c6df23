import BookCatalog

/// Deterministic sample books for the benchmark: English-like titles over a vocabulary of a few
/// hundred common words plus thousands of made-up ones, some accented words, and about 3%
/// Japanese titles. Kept private to the benchmark so its figures stay comparable over time.
struct BenchBooks: Sequence, IteratorProtocol {
    private var state: UInt64
    private var remaining: Int

    init(count: Int, seed: UInt64 = 20_240_601) {
        state = seed
        remaining = count
    }

    /// Exact: lets an import of many books recreate the title index once instead of growing it.
    var underestimatedCount: Int { remaining }

    mutating func next() -> NewBook? {
        guard remaining > 0 else { return nil }
        remaining -= 1
        if random(100) < 3 {
            let title = (0..<(2 + random(4))).map { _ in Self.japanese[random(Self.japanese.count)] }.joined()
            return NewBook(title: title, author: Self.japaneseAuthors[random(Self.japaneseAuthors.count)])
        }
        var words: [String] = []
        if random(4) == 0 { words.append(["The", "A", "An"][random(3)]) }
        for position in 0..<(1 + random(5)) {
            if position > 0 && random(5) == 0 { words.append(["of", "and", "in", "the", "for"][random(5)]) }
            words.append(word())
        }
        let author = Self.firstNames[random(Self.firstNames.count)] + " " + Self.lastNames[random(Self.lastNames.count)]
        return NewBook(title: words.joined(separator: " "), author: author)
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

    private mutating func random(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }

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
