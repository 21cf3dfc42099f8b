// Undo and redo of scenario changes (issue 14, item 9): each change is one step, a slider
// drag is one step however many values it passed, and a network that did not open leaves
// no step behind.
#include "scenario/scenario_history.h"
#include "scenario/scenario_panel.h"
#include "window/main_window.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QSlider>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace iterscope::ui;

namespace {
void drag(QSlider* slider, std::initializer_list<int> values) {
    slider->setSliderDown(true); // emits sliderPressed, as a mouse press on the handle does
    for (int v : values)
        slider->setValue(v);
    slider->setSliderDown(false);
}
} // namespace

class TestUndo : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void aSliderDragIsOneStep() {
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        QUndoStack* stack = w.history()->stack();
        QCOMPARE(stack->count(), 0); // the first scenario is where history starts
        drag(w.scenarioPanel()->batchSlider(), {7, 8, 9, 8, 7, 8}); // 128, 256, 512, ... 256
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings.batch, 256);
        QCOMPARE(stack->count(), 1);
        QCOMPARE(stack->undoText(), QStringLiteral("batch 64 → 256"));
        QVERIFY(w.history()->undoAction()->text().contains(QStringLiteral("batch 64 → 256")));

        w.history()->undoAction()->trigger();
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings.batch, 64);
        QCOMPARE(w.scenarioPanel()->settings().batch, 64);
        QCOMPARE(w.scenarioPanel()->batchSlider()->value(), 6);

        w.history()->redoAction()->trigger();
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings.batch, 256);
    }

    void twoDragsAreTwoStepsAndADragBackIsNone() {
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        QSlider* gpus = w.scenarioPanel()->gpuCountSlider();
        drag(gpus, {4, 5});
        drag(gpus, {4});
        QVERIFY(w.waitForResult());
        QCOMPARE(w.history()->stack()->count(), 2);
        drag(gpus, {5, 4}); // back where it started
        QCOMPARE(w.history()->stack()->count(), 2);
        // Keyboard steps and other controls are steps of their own.
        w.scenarioPanel()->strategyCombo()->setCurrentIndex(3);
        QCOMPARE(w.history()->stack()->count(), 3);
        w.history()->undoAction()->trigger();
        w.history()->undoAction()->trigger();
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings.totalGpus(), 32);
        QCOMPARE(w.scenarioPanel()->strategyCombo()->currentIndex(), 0);
    }

    void openingANetworkIsAStepAndAFailedOneIsNot() {
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("broken.onnx"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not a protobuf");
        f.close();
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        w.openNetwork(QStringLiteral("vgg16"));
        QVERIFY(w.waitForResult());
        QCOMPARE(w.history()->stack()->count(), 1);
        w.openNetwork(bad);
        QVERIFY(w.waitForResult());
        QTRY_VERIFY(!w.predictor()->isBusy());
        QCOMPARE(w.currentResult()->settings.network, QStringLiteral("vgg16"));
        QCOMPARE(w.scenarioPanel()->settings().network, QStringLiteral("vgg16"));
        QCOMPARE(w.history()->stack()->count(), 1);
        QVERIFY(!w.history()->redoAction()->isEnabled());
        w.history()->undoAction()->trigger();
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings.network, QStringLiteral("resnet50"));
    }

    void oneTypedEditIsOneUndoStep() {
        MainWindow w(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        RangeSpinBox* batch = w.scenarioPanel()->batchSpin();
        batch->setFocus();
        batch->selectAll();
        QTest::keyClicks(batch, QStringLiteral("128"));
        QCOMPARE(w.history()->stack()->count(), 0); // nothing taken while typing
        QTest::keyClick(batch, Qt::Key_Return);
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings.batch, 128);
        QCOMPARE(w.history()->stack()->count(), 1);
        QCOMPARE(w.history()->stack()->undoText(), QStringLiteral("batch 64 → 128"));
        // Ctrl+Z in the focused box undoes the scenario, not the box's text.
        QVERIFY(batch->hasFocus());
        QTest::keyClick(batch, Qt::Key_Z, Qt::ControlModifier);
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings.batch, 64);
        QCOMPARE(batch->value(), 64);
        QCOMPARE(w.history()->stack()->index(), 0);
        // And what was typed but not taken is dropped, not left in the box.
        QTest::keyClicks(batch, QStringLiteral("9"));
        QTest::keyClick(batch, Qt::Key_Y, Qt::ControlModifier); // redo
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings.batch, 128);
        QCOMPARE(batch->text(), QStringLiteral("128"));
    }

    void anOutOfRangeValueIsRefusedNotChanged() {
        MainWindow w(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        w.setScenario(ScenarioSettings{}); // a DGX-1: eight GPUs a node
        QVERIFY(w.waitForResult());
        RangeSpinBox* per_node = w.scenarioPanel()->gpusPerNodeSpin();
        QCOMPARE(per_node->maximum(), 8);
        per_node->setFocus();
        per_node->selectAll();
        QTest::keyClicks(per_node, QStringLiteral("16"));
        QCOMPARE(per_node->text(), QStringLiteral("16")); // kept on screen, not cut to "1"
        QTest::keyClick(per_node, Qt::Key_Return);
        QVERIFY(w.waitForResult());
        QCOMPARE(per_node->value(), 8);
        QCOMPARE(w.currentResult()->settings.gpus_per_node, 8);
        QCOMPARE(w.history()->stack()->count(), 0);
        QVERIFY2(per_node->refusal().contains(QStringLiteral("16")) &&
                     per_node->refusal().contains(QStringLiteral("8")),
                 qPrintable(per_node->refusal()));
        QVERIFY(per_node->property("refused").toBool()); // drawn red
        QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("refused")));
        // A value in range is taken, and clears the refusal.
        per_node->selectAll();
        QTest::keyClicks(per_node, QStringLiteral("4"));
        QTest::keyClick(per_node, Qt::Key_Return);
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings.gpus_per_node, 4);
        QVERIFY(per_node->refusal().isEmpty());
    }

    void undoAndRedoHaveKeysEverywhere() {
        MainWindow w(false);
        QVERIFY(w.history()->undoAction()->shortcuts().contains(
            QKeySequence(QStringLiteral("Ctrl+Z"))));
        const auto redo = w.history()->redoAction()->shortcuts();
        QVERIFY(redo.contains(QKeySequence(QStringLiteral("Ctrl+Shift+Z"))));
        QVERIFY(redo.contains(QKeySequence(QStringLiteral("Ctrl+Y"))));
        QVERIFY(!w.history()->undoAction()->isEnabled()); // nothing to undo yet
    }
};

QTEST_MAIN(TestUndo)
#include "tst_undo.moc"
