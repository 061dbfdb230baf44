package io.txmsg.store.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.store.Dialect;
import io.txmsg.testkit.db.DatabaseIndependent;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The shipped schema files as files: a released one never changes, there is one per version and
 * dialect and no other, and the Liquibase changelog runs exactly these (no copy of its own).
 */
@DatabaseIndependent
class SchemaFilesTest {
  /**
   * SHA-256 of each released file (line endings normalised to \n, as Flyway's own checksum ignores
   * them). Add a line here when a new version is released; never change one.
   */
  private static final Map<String, String> RELEASED =
      Map.ofEntries(
          Map.entry(
              "h2/V1__txmsg_base.sql",
              "e494780f635c296179bb4540bccd3ae59483b17b2528869c998dd9bc72cf88b6"),
          Map.entry(
              "h2/V2__txmsg_outbox_columns.sql",
              "9c6d7f2cbddfc7ebbfa019518753fd6669ec871be32da53c3d13ccebdc2629e6"),
          Map.entry(
              "h2/V3__txmsg_archive_runs.sql",
              "f2eb7650b3524bed05e13f980de0f730f69b06d65256a2b9079b40cc6ecb7aa1"),
          Map.entry(
              "h2/V4__txmsg_cdc_relay.sql",
              "ccf3a37923768100ad01507ea51d66e1046ed564f20876c69361f4c0a2617ec2"),
          Map.entry(
              "h2/V5__txmsg_instance_heartbeat.sql",
              "7b53ce9401bba2704420db1923f2d16015de5021a36a4c7903f6efde770c5105"),
          Map.entry(
              "h2/V6__txmsg_business_key_index_optional.sql",
              "69e4094969c138fda22b3c1fcc98d1ce25de446e2391b1ab4e8ca36e0fee1c53"),
          Map.entry(
              "mariadb/V1__txmsg_base.sql",
              "3d077f2ac4a376a2128cec4613b93bb88911e2dbe20007e279e57addefffabdc"),
          Map.entry(
              "mariadb/V2__txmsg_outbox_columns.sql",
              "e5f311d86c6f3f34e95e89b5f238366ca35a1c4b968b55c3db8be4d6190ee519"),
          Map.entry(
              "mariadb/V3__txmsg_archive_runs.sql",
              "d2e8cf659ed0a70383106527c46a6c49557677dc207a785471e1bedb2d353c87"),
          Map.entry(
              "mariadb/V4__txmsg_cdc_relay.sql",
              "d7cd8125dee3f418261ee0c29852888c194815587aeef6e6b4e7dcb3a5e25802"),
          Map.entry(
              "mariadb/V5__txmsg_instance_heartbeat.sql",
              "06d2ce1e82a054e54497e1ff3d9fa601d91bbcd4db0ac6bd5f4729ef1d947722"),
          Map.entry(
              "mariadb/V6__txmsg_business_key_index_optional.sql",
              "73349c4099647e096a16a84dbb44e04685bba8126449d1ea84be7ba5b7f14ce2"),
          Map.entry(
              "postgresql/V1__txmsg_base.sql",
              "912d38eb4d3afaa1020d839b8cfb0f19df29b9e2926aaeb5ee16a9501bcfc590"),
          Map.entry(
              "postgresql/V2__txmsg_outbox_columns.sql",
              "cf2927b941cbfc62780cadb0e34552bc036c6b6d279ed37df5428d32b3cfdd44"),
          Map.entry(
              "postgresql/V3__txmsg_archive_runs.sql",
              "dba106ddda3d8258ce02e30e2414a73b753cf47e0747edee4f5d85ce6c80eac9"),
          Map.entry(
              "postgresql/V4__txmsg_cdc_relay.sql",
              "51beee40b57feaba5867020d732eb435aed348d5ce4d903103e627f6d8ce426a"),
          Map.entry(
              "postgresql/V5__txmsg_instance_heartbeat.sql",
              "1cfd8efa65dc3b3b080236fc62f15a4e50d0dab5a9f6a15908e61e46e7dcfdf3"),
          Map.entry(
              "postgresql/V6__txmsg_business_key_index_optional.sql",
              "faa1f1280cb0621e7dcf4d5d0fd3309966e5cb8f64f846997892139a131a9e2e"));

  private static final String ROOT = "io/txmsg/store/";
  private static final String CHANGELOG = ROOT + "liquibase/txmsg-changelog.xml";

  @Test
  void aReleasedMigrationNeverChanges() {
    List<String> changed = new ArrayList<>();
    for (Map.Entry<String, String> file : new TreeMap<>(RELEASED).entrySet()) {
      String actual = sha256(text(ROOT + "flyway/" + file.getKey()));
      if (!actual.equals(file.getValue())) {
        changed.add(file.getKey() + " (now " + actual + ")");
      }
    }
    assertThat(changed)
        .as(
            "released schema files changed: %s. A released migration never changes, not even a"
                + " comment: every database that ran it holds its checksum, and Flyway's validate"
                + " (and Liquibase's) then fails at every user's startup. Restore the file and add"
                + " the change as a new version instead (the next V<n>__txmsg_<what>.sql in every"
                + " vendor directory, see SchemaInstaller.VERSION)",
            changed)
        .isEmpty();
  }

  @Test
  void everyVersionHasOneFilePerDialectAndEveryFileIsPinned() {
    List<String> expected = new ArrayList<>();
    for (Dialect d : Dialect.values()) {
      String dir = "flyway/" + SchemaScripts.vendor(d);
      List<String> found = listing(ROOT + dir).stream().map(f -> dir + "/" + f).toList();
      List<String> named = new ArrayList<>();
      for (int v = 1; v <= SchemaInstaller.VERSION; v++) {
        String resource = SchemaScripts.resource(d, v);
        assertThat(resource).startsWith(dir + "/V" + v + "__txmsg_").endsWith(".sql");
        named.add(resource);
      }
      assertThat(found)
          .as(
              "the files in io/txmsg/store/%s: V1..V%d as SchemaScripts names them, nothing"
                  + " else (Flyway would run any other V<n> file there)",
              dir, SchemaInstaller.VERSION)
          .containsExactlyInAnyOrderElementsOf(named);
      named.forEach(r -> expected.add(r.substring("flyway/".length())));
    }
    assertThat(new TreeSet<>(RELEASED.keySet()))
        .as(
            "every shipped file's checksum is pinned in RELEASED (add the new version's lines"
                + " when it is released)")
        .containsExactlyElementsOf(new TreeSet<>(expected));
  }

  /**
   * The opt-in business-key index (schema V6 dropped it from the schema): one idempotent statement
   * per dialect, outside the Flyway directories, building without blocking producers where the
   * database can.
   */
  @Test
  void theOptionalBusinessKeyIndexIsOneIdempotentStatementPerDialectOutsideFlyway() {
    for (Dialect d : Dialect.values()) {
      String sql = SchemaScripts.businessKeyIndex(d, "billing_");
      assertThat(sql)
          .as(d.id())
          .startsWith("CREATE INDEX")
          .contains(
              "IF NOT EXISTS billing_journal_business_key_ix ON billing_journal (business_key)")
          .doesNotContain("${");
      assertThat(SchemaScripts.businessKeyIndexResource(d)).doesNotStartWith("flyway/");
    }
    assertThat(SchemaScripts.businessKeyIndex(Dialect.POSTGRESQL, "txmsg_"))
        .startsWith("CREATE INDEX CONCURRENTLY");
    assertThat(SchemaScripts.businessKeyIndex(Dialect.MYSQL, "txmsg_"))
        .endsWith("ALGORITHM=INPLACE LOCK=NONE");
  }

  @Test
  void theFilesUseOnlyThePrefixPlaceholder() {
    for (String file : RELEASED.keySet()) {
      assertThat(text(ROOT + "flyway/" + file).replace(SchemaScripts.PLACEHOLDER, ""))
          .as(file + ": ${txmsg_prefix} is the only placeholder Flyway and Liquibase are given")
          .doesNotContain("${");
    }
  }

  /**
   * The changelog has, per version and in order, one changeset that runs that version's file of
   * every dialect (by dbms), from the Flyway directories (no SQL of its own), then one that tags
   * the history {@code txmsg-V<n>} (what changelog-sync-to-tag takes over an existing install to).
   */
  @Test
  void theLiquibaseChangelogRunsTheSameFilesVersionByVersion() {
    String xml = text(CHANGELOG);
    Matcher changeSet =
        Pattern.compile("(?s)<changeSet id=\"([^\"]+)\"[^>]*>(.*?)</changeSet>").matcher(xml);
    Pattern sqlFile = Pattern.compile("<sqlFile dbms=\"([^\"]+)\" path=\"([^\"]+)\"");
    List<String> ids = new ArrayList<>();
    while (changeSet.find()) {
      ids.add(changeSet.group(1));
      int v = (ids.size() + 1) / 2;
      if (ids.size() % 2 == 0) {
        assertThat(changeSet.group(1)).isEqualTo("txmsg-V" + v + "-tag");
        assertThat(changeSet.group(2).strip()).isEqualTo("<tagDatabase tag=\"txmsg-V" + v + "\"/>");
        continue;
      }
      assertThat(changeSet.group(1)).isEqualTo("txmsg-V" + v);
      Map<String, String> paths = new TreeMap<>();
      Matcher files = sqlFile.matcher(changeSet.group(2));
      while (files.find()) {
        paths.put(files.group(1), files.group(2));
      }
      assertThat(paths)
          .as("changeset txmsg-V" + v)
          .containsExactlyInAnyOrderEntriesOf(
              Map.of(
                  "h2", ROOT + SchemaScripts.resource(Dialect.H2, v),
                  "mariadb,mysql", ROOT + SchemaScripts.resource(Dialect.MYSQL, v),
                  "postgresql", ROOT + SchemaScripts.resource(Dialect.POSTGRESQL, v)));
      assertThat(changeSet.group(2).replaceAll("(?s)<sqlFile [^>]*/>", "").strip())
          .as("changeset txmsg-V" + v + " holds nothing but the files")
          .isEmpty();
    }
    assertThat(ids).as("changesets in " + CHANGELOG).hasSize(2 * SchemaInstaller.VERSION);
  }

  /** What SchemaScripts checks on every read, so a broken file fails at the first install. */
  @Test
  void theMigratorSplitsOffTheVersionRowStatements() {
    for (Dialect d : Dialect.values()) {
      assertThat(SchemaScripts.versionTable(d, "acme_tx_"))
          .singleElement()
          .asString()
          .startsWith("CREATE TABLE acme_tx_schema (");
      for (int v = 1; v <= SchemaInstaller.VERSION; v++) {
        assertThat(SchemaScripts.version(d, "acme_tx_", v))
            .as(d + " V" + v)
            .isNotEmpty()
            .noneMatch(sql -> sql.contains("acme_tx_schema ") || sql.contains("${"));
      }
    }
    assertThatThrownBy(() -> SchemaScripts.version(Dialect.H2, "txmsg_", 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> SchemaScripts.version(Dialect.H2, "txmsg_", SchemaInstaller.VERSION + 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static String text(String resource) {
    try (InputStream in = SchemaFilesTest.class.getClassLoader().getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A class-path directory's file names (target/classes in this build). */
  private static List<String> listing(String dir) {
    return text(dir).lines().filter(f -> !f.isBlank()).sorted().toList();
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256")
                  .digest(text.replace("\r\n", "\n").getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
