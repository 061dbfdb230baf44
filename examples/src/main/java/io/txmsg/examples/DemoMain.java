package io.txmsg.examples;

/**
 * {@code ./mvnw -q -pl examples exec:java [-Dexec.args="--orders 500"]}: runs the payment demo and
 * exits 0 when every invariant holds, 1 when one fails, 2 on a bad argument, 3 when the demo itself
 * could not run.
 */
public final class DemoMain {
  private DemoMain() {}

  public static void main(String[] args) {
    System.exit(run(args));
  }

  static int run(String[] args) {
    for (String a : args) {
      if (a.equals("--help") || a.equals("-h")) {
        System.out.print(DemoOptions.usage());
        return 0;
      }
    }
    DemoOptions options;
    try {
      options = DemoOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("demo: " + e.getMessage());
      System.err.print(DemoOptions.usage());
      return 2;
    }
    try {
      ReconciliationReport report = PaymentDemo.run(options, System.out);
      report.print(System.out);
      return report.exitCode();
    } catch (Exception e) {
      System.err.println("demo could not run: " + e);
      e.printStackTrace();
      return 3;
    }
  }
}
