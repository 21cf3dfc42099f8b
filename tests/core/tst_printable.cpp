// Error messages are printable: bytes of binary files are escaped, text in any script is not.
#include "util/error.h"
#include "util/printable.h"

#include <QTest>

#include <string>

using namespace iterscope;

class TestPrintable : public QObject {
    Q_OBJECT

  private slots:
    void asciiAndWellFormedUtf8PassUnchanged() {
        QCOMPARE(printableText("layer 'conv1': kernel 3x3"),
                 std::string("layer 'conv1': kernel 3x3"));
        const std::string utf8 = "couche «conv1» 卷积 \xf0\x9f\x98\x80"; // «», CJK, an emoji
        QCOMPARE(printableText(utf8), utf8);
    }

    void controlAndStrayBytesBecomeHexEscapes() {
        QCOMPARE(printableText(std::string("a\x85z", 3)), std::string("a\\x85z"));
        QCOMPARE(printableText(std::string("\x00\x01\x7f", 3)), std::string("\\x00\\x01\\x7f"));
        QCOMPARE(printableText("two\nlines\tand\r"), std::string("two\\nlines\\tand\\r"));
        // U+0085 (NEL) is well-formed UTF-8 but a control: escaped byte by byte.
        QCOMPARE(printableText("\xc2\x85"), std::string("\\xc2\\x85"));
        // Overlong, surrogate and truncated sequences are not text.
        QCOMPARE(printableText("\xc0\xaf"), std::string("\\xc0\\xaf"));
        QCOMPARE(printableText("\xed\xa0\x80"), std::string("\\xed\\xa0\\x80"));
        QCOMPARE(printableText("\xe4\xb8"), std::string("\\xe4\\xb8"));
    }

    void escapingTwiceChangesNothing() {
        const std::string once = printableText(std::string("x\x85\n", 3));
        QCOMPARE(printableText(once), once);
    }

    void inputErrorsAreAlwaysPrintable() {
        try {
            throw InputError(std::string("file.json: last read '\x85\x01'"));
        } catch (const InputError& e) {
            QCOMPARE(std::string(e.what()), std::string("file.json: last read '\\x85\\x01'"));
        }
    }
};

QTEST_APPLESS_MAIN(TestPrintable)
#include "tst_printable.moc"
