import BookCatalog

@MainActor
enum InteractiveDemo {
    static func run(options: DemoOptions, schedule: LatencySchedule) async {
        print("interactive mode: not yet")
    }
}
